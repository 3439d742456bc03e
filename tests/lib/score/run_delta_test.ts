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
  const qs = ["q1", "q2", "q3", "q4", "q5", "q6"];
  const a = qs.map((q) => line("s", q, 1));
  const one = qs.map((q, i) => line("s", q, i === 0 ? 0 : 1));
  // One question of six dropped: mean -1/6, but the interval reaches 0.
  assert.deepEqual(regressions(runDelta(a, one), 0.1), []);
  const all = qs.map((q) => line("s", q, 0));
  assert.equal(regressions(runDelta(a, all), 0.1).length, 1);
  assert.equal(regressions(runDelta(a, all), 1).length, 0);
  // Four of four dropped is as far as the data go, yet no test at 5 % can decide on four
  // differing questions: not a regression (the gate would otherwise fail on p = 0.125).
  const four = qs.slice(0, 4);
  const d = runDelta(four.map((q) => line("s", q, 1)), four.map((q) => line("s", q, 0)));
  assert.equal(d.systems[0].score!.p_value, 0.125);
  assert.ok(d.systems[0].score!.diff.high >= 0);
  assert.deepEqual(regressions(d, 0.1), []);
});

Deno.test("runDelta compares systems without answers on the retrieval metric asked for", () => {
  const ir = (system: string, q: string, ndcg: number, map: number): DeltaLine => ({
    ...line(system, q, null),
    retrieval: { metrics: { "ndcg@10": ndcg, map } },
  });
  const qs = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"];
  const a = qs.map((q) => ir("bm25", q, 0.8, 0.5));
  const b = qs.map((q) => ir("bm25", q, 0.6, 0.5));
  const d = runDelta(a, b);
  assert.equal(d.systems[0].metric, "ndcg@10");
  assert.equal(d.systems[0].shared, 7);
  assert.ok(Math.abs(d.systems[0].score!.diff.mean - -0.2) < 1e-12);
  assert.equal(regressions(d, 0.1).length, 1);
  const byMap = runDelta(a, b, { retrievalMetric: "map" });
  assert.equal(byMap.systems[0].metric, "map");
  assert.equal(byMap.systems[0].score!.diff.mean, 0);
  assert.deepEqual(regressions(byMap, 0.1), []);
  // A metric that no line has, and "__proto__", compare nothing rather than read a prototype.
  for (const metric of ["ndcg@5", "__proto__", "constructor"]) {
    assert.equal(runDelta(a, b, { retrievalMetric: metric }).systems[0].shared, 0, metric);
  }
});
