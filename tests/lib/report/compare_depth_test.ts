import assert from "node:assert/strict";
import { compareDepthNotes, depthMarks } from "../../../lib/report/compare_depth.ts";
import { type DeltaLine, metricDeltas, runDelta } from "../../../lib/score/run_delta.ts";

/** Lines of `bm25` on six questions with nDCG@10 and recall@100 `value`, ranked `depth` deep. */
function lines(value: number, depth: number | null): DeltaLine[] {
  return ["q1", "q2", "q3", "q4", "q5", "q6"].map((q) => ({
    system: "bm25",
    question_id: q,
    repeat: 1,
    answer_score: null,
    cost_usd: 0,
    latency_ms: 1,
    retrieval: { metrics: { "ndcg@10": value, "recall@100": value }, depth },
  }));
}

Deno.test("runDelta and metricDeltas carry each run's fewest ranked documents", () => {
  const [d] = runDelta(lines(0.5, null), lines(0.4, 5)).systems;
  assert.equal(d.depthA, null);
  assert.equal(d.depthB, 5);
  const [m] = metricDeltas(lines(0.5, 50), lines(0.4, 5), "recall@100");
  assert.deepEqual([m.depthA, m.depthB], [50, 5]);
});

Deno.test("depthMarks: a side below the metric's cut-off and its change are marked, nothing else", () => {
  const at = (a: number | null, b: number | null, metric: string) =>
    depthMarks(metricDeltas(lines(0.5, a), lines(0.4, b), metric)[0]);
  assert.deepEqual(at(null, 5, "ndcg@10"), { a: "", b: "*", change: "*" });
  assert.deepEqual(at(50, 5, "ndcg@10"), { a: "", b: "*", change: "*" });
  // A depth equal to the cut-off is not below it.
  assert.deepEqual(at(10, 10, "ndcg@10"), { a: "", b: "", change: "" });
  assert.deepEqual(at(50, 5, "recall@100"), { a: "*", b: "*", change: "*" });
  // The answer score and map name no cut-off.
  assert.deepEqual(
    depthMarks({ ...runDelta(lines(1, 5), lines(1, 5)).systems[0], metric: "answer_score" }),
    {
      a: "",
      b: "",
      change: "",
    },
  );
  // No figure, no mark (a run without the metric).
  const none = {
    ...metricDeltas(lines(0.5, 5), lines(0.4, 5), "ndcg@10")[0],
    scoreA: null,
    score: null,
  };
  assert.deepEqual(depthMarks(none), { a: "", b: "*", change: "" });
});

Deno.test("compareDepthNotes: the run's note per side, and a note when the two sides were cut to different depths", () => {
  const notes = compareDepthNotes([
    ...metricDeltas(lines(0.5, 50), lines(0.4, 5), "ndcg@10"),
    ...metricDeltas(lines(0.5, 50), lines(0.4, 5), "recall@100"),
  ]);
  assert.deepEqual(notes, [
    "bm25 in A: a ranking held only 50 documents (the retriever's top_k passages came from no more), so metrics at larger cut-offs count fewer documents than they name",
    "bm25 in B: a ranking held only 5 documents (the retriever's top_k passages came from no more), so metrics at larger cut-offs count fewer documents than they name",
    "bm25: its change of nDCG@10 sets B's figure, from rankings cut to as few as 5 documents, against A's, from rankings that reached the cut-off, so it measures the depth as much as the system",
    "bm25: its change of recall@100 sets B's figure, from rankings cut to as few as 5 documents, against A's, from rankings cut to as few as 50 documents, so it measures the depth as much as the system",
  ]);
  // Cut alike on both sides: each run's note, no note on the change.
  assert.equal(
    compareDepthNotes(metricDeltas(lines(0.5, 5), lines(0.4, 5), "ndcg@10")).filter((n) =>
      n.includes("measures the depth")
    ).length,
    0,
  );
  assert.deepEqual(
    compareDepthNotes(metricDeltas(lines(0.5, null), lines(0.4, 100), "recall@100")),
    [],
  );
});
