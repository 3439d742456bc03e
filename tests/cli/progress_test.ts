import assert from "node:assert/strict";
import { createProgress, duration, statusLine } from "../../lib/cli/progress.ts";
import { newPace, remainingMs } from "../../lib/cli/eta.ts";
import type { QuestionResult } from "../../lib/types.ts";

function result(passed: boolean, error = false): QuestionResult {
  return {
    system: "s",
    question_id: "q",
    repeat: 1,
    passed,
    answer_score: passed ? 1 : 0,
    error: error ? { kind: "model", message: "down" } : null,
    cost_usd: 0.001,
    latency_ms: 12.4,
  } as unknown as QuestionResult;
}

function recorder(mode: "live" | "periodic" | "verbose" | "quiet", clock: { t: number }) {
  const lines: string[] = [];
  const redraws: string[] = [];
  const progress = createProgress(mode, {
    line: (t) => lines.push(t),
    redraw: mode === "live" ? (t) => redraws.push(t) : undefined,
    now: () => clock.t,
  });
  return { lines, redraws, progress };
}

Deno.test("statusLine: done/total, pass rate, errors, dollars, elapsed and time left", () => {
  assert.equal(
    statusLine({ done: 21, total: 84, passed: 19, errors: 1, spent: 0.0123, elapsedMs: 12_000 }),
    "[21/84] 25 % · pass 19/21 · errors 1 · $0.0123 · 12 s · about 36 s left",
  );
  assert.equal(
    statusLine({ done: 84, total: 84, passed: 80, errors: 0, spent: 0, elapsedMs: 125_000 }),
    "[84/84] 100 % · pass 80/84 · errors 0 · $0.0000 · 2 min 05 s",
  );
});

Deno.test("duration: milliseconds, seconds, minutes and hours", () => {
  assert.equal(duration(850), "850 ms");
  assert.equal(duration(59_400), "59 s");
  assert.equal(duration(7_384_000), "2 h 03 min");
  assert.equal(duration(Infinity), "-");
});

Deno.test("periodic progress prints a line per tenth of the run, not per question", () => {
  const clock = { t: 0 };
  const { lines, progress } = recorder("periodic", clock);
  for (let done = 1; done <= 100; done++) {
    clock.t += 10;
    progress.onResult(result(done % 4 !== 0, done === 50), { done, total: 100 });
  }
  assert.equal(lines.length, 10);
  assert.match(
    lines[0],
    /^\[ 10\/100\] 10 % · pass 8\/10 · errors 0 · \$0\.0100 · 100 ms · about 900 ms left$/,
  );
  assert.match(lines[9], /^\[100\/100\] 100 % · pass 74\/100 · errors 1 · \$0\.1000 · 1 s$/);
});

Deno.test("periodic progress also prints after 30 s without a new tenth", () => {
  const clock = { t: 0 };
  const { lines, progress } = recorder("periodic", clock);
  progress.onResult(result(true), { done: 1, total: 1000 });
  clock.t = 31_000;
  progress.onResult(result(true), { done: 2, total: 1000 });
  progress.onResult(result(true), { done: 3, total: 1000 });
  assert.equal(lines.length, 1);
  assert.ok(lines[0].startsWith("[   2/1000] 0 % · pass 2/2"), lines[0]);
});

Deno.test("live progress redraws one line and ends it once", () => {
  const clock = { t: 0 };
  const { lines, redraws, progress } = recorder("live", clock);
  for (let done = 1; done <= 3; done++) progress.onResult(result(true), { done, total: 3 });
  assert.equal(redraws.length, 3);
  assert.deepEqual(lines, []);
  progress.finish();
  progress.finish();
  assert.deepEqual(lines, [""]);
});

Deno.test("verbose progress prints every question; quiet prints nothing", () => {
  const clock = { t: 0 };
  const verbose = recorder("verbose", clock);
  verbose.progress.onResult(result(false), { done: 1, total: 2 });
  verbose.progress.onResult(result(true, true), { done: 2, total: 2 });
  assert.deepEqual(verbose.lines, [
    "[1/2] s q#1: fail, score 0.00, 12 ms",
    "[2/2] s q#1: error (model), score 1.00, 12 ms",
  ]);
  const quiet = recorder("quiet", clock);
  quiet.progress.onResult(result(true), { done: 1, total: 1 });
  quiet.progress.finish();
  assert.deepEqual(quiet.lines, []);
});

/** A result of `system` that took `latency` ms. */
function timed(system: string, latency: number): QuestionResult {
  return { ...result(true), system, latency_ms: latency } as QuestionResult;
}

Deno.test("remainingMs: a slow system whose questions are still queued counts as slow", () => {
  // 20 questions of a fast system (1 ms each) and 1 of a slow one (1 s) are done after 300 ms
  // at concurrency 4; 19 of the slow one are left.
  const fast = { total: 20, done: 20, latencyMs: 20, running: [] };
  const slow = { total: 20, done: 1, latencyMs: 1000, running: [] };
  const left = remainingMs([fast, slow], { concurrency: 4, elapsedMs: 300, now: 300 });
  assert.ok(left >= (19 * 1000) / 4, `${left} ms`);
  assert.ok(left < (19 * 1000) / 4 + 19 * 300, `${left} ms`);
  // What elapsed / done × remaining said: 271 ms.
  assert.ok((300 / 21) * 19 < 300);
  // Before its first question ends, a system counts at least as long as that one has run.
  const started = { total: 20, done: 0, latencyMs: 0, running: [100] };
  const early = remainingMs([fast, started], { concurrency: 4, elapsedMs: 2100, now: 2100 });
  assert.ok(early >= (20 * 2000) / 4, `${early} ms`);
  // Systems alike: the same as elapsed / done × remaining.
  const a = { total: 10, done: 5, latencyMs: 50, running: [] };
  const b = { total: 10, done: 5, latencyMs: 50, running: [] };
  assert.equal(remainingMs([a, b], { concurrency: 2, elapsedMs: 500, now: 500 }), 500);
  assert.ok(Number.isNaN(remainingMs([newPace(3)], { concurrency: 1, elapsedMs: 5, now: 5 })));
});

Deno.test("progress with the plan: the time left weighs the slow system, the line names who is behind, a line per finished system", () => {
  const clock = { t: 0 };
  const lines: string[] = [];
  const progress = createProgress("periodic", {
    line: (t) => lines.push(t),
    now: () => clock.t,
    concurrency: 2,
  });
  progress.onPlan!(new Map([["fast", 9], ["slow", 1]]));
  progress.onStart!("slow");
  for (let done = 1; done <= 9; done++) {
    progress.onStart!("fast");
    clock.t += 1;
    progress.onResult(timed("fast", 1), { done, total: 10 });
  }
  assert.equal(
    lines[0],
    "[ 1/10] 10 % · pass 1/1 · errors 0 · $0.0010 · 1 ms · about 9 ms left · slow 0/1, fast 1/9",
  );
  assert.deepEqual(lines.slice(-2), [
    "fast done: 9 questions · pass 9/9 · errors 0",
    "[ 9/10] 90 % · pass 9/9 · errors 0 · $0.0090 · 9 ms · about 5 ms left · slow 0/1",
  ]);
  clock.t = 5000;
  progress.onResult(timed("slow", 5000), { done: 10, total: 10 });
  assert.deepEqual(lines.slice(-2), [
    "slow done: 1 question · pass 1/1 · errors 0",
    "[10/10] 100 % · pass 10/10 · errors 0 · $0.0100 · 5 s",
  ]);
});

Deno.test("live progress puts a finished system's line above the live line", () => {
  const clock = { t: 0 };
  const { lines, redraws, progress } = recorder("live", clock);
  progress.onPlan!(new Map([["s", 1], ["t", 1]]));
  progress.onResult(result(true), { done: 1, total: 2 });
  progress.onResult(timed("t", 3), { done: 2, total: 2 });
  // Before the live line is drawn a finished system's line is a plain line; after, it is drawn
  // over the live line and ended, and the live line comes back below it.
  assert.deepEqual(lines, ["s done: 1 question · pass 1/1 · errors 0", ""]);
  assert.match(redraws[0], /^\[1\/2\] 50 % /);
  assert.equal(redraws[1], "t done: 1 question · pass 1/1 · errors 0");
  assert.match(redraws[2], /^\[2\/2\] 100 % /);
});
