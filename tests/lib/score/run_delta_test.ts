import assert from "node:assert/strict";
import { type DeltaLine, regressions, runDelta } from "../../../lib/score/run_delta.ts";

function line(system: string, q: string, score: number | null, repeat = 1): DeltaLine {
  return { system, question_id: q, repeat, answer_score: score, cost_usd: 0.01, latency_ms: 10 };
}

Deno.test("runDelta pairs the shared questions, folding repeats, and lists systems of one run", () => {
  const a = [line("s", "q1", 1), line("s", "q2", 1), line("s", "q3", 1), line("old", "q1", 1)];
  const b = [
    line("s", "q1", 0),
    line("s", "q1", 1, 2),
    line("s", "q2", 1),
    line("s", "q4", 0),
    line("new", "q1", 1),
  ];
  const d = runDelta(a, b);
  assert.deepEqual(d.onlyA, ["old"]);
  assert.deepEqual(d.onlyB, ["new"]);
  const [s] = d.systems;
  // Shared q1 (0.5 after folding vs 1) and q2 (1 vs 1): mean -0.25.
  assert.equal(s.shared, 2);
  assert.equal(s.score!.diff.mean, -0.25);
  assert.equal(s.scoreA, 1);
  assert.equal(s.scoreB, 0.5);
});

Deno.test("regressions: only drops beyond the threshold whose interval is below zero", () => {
  const a = ["q1", "q2", "q3", "q4"].map((q) => line("s", q, 1));
  const mixed = [line("s", "q1", 0), line("s", "q2", 1), line("s", "q3", 1), line("s", "q4", 1)];
  // One question of four dropped: mean -0.25, but the interval reaches 0.
  assert.deepEqual(regressions(runDelta(a, mixed), 0.1), []);
  const all = ["q1", "q2", "q3", "q4"].map((q) => line("s", q, 0));
  assert.equal(regressions(runDelta(a, all), 0.1).length, 1);
  assert.equal(regressions(runDelta(a, all), 1).length, 0);
});
