import assert from "node:assert/strict";
import { createProgress, duration, statusLine } from "../../lib/cli/progress.ts";
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
