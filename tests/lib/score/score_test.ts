import assert from "node:assert/strict";
import { scoreTrace } from "../../../lib/score/score.ts";
import type { Trace } from "../../../lib/types.ts";

function trace(error: Trace["error"] = null): Trace {
  return {
    system: "ret",
    model: "test:model",
    question_id: "q",
    repeat: 1,
    steps: [{
      type: "retrieval",
      retriever: "bm25",
      query: "q",
      results: [{ passage_id: "b#0", doc_id: "b", score: 2 }, {
        passage_id: "a#1",
        doc_id: "a",
        score: 1,
      }],
      latency_ms: 1,
      embedding_tokens: 0,
      cost_usd: 0,
      error: null,
    }],
    answer: null,
    usage: { input_tokens: 0, output_tokens: 0 },
    cost_usd: 0,
    latency_ms: 1,
    flags: { best_effort: false, budget_exhausted: false, format_error: false },
    format_errors: 0,
    error,
  };
}

Deno.test("a question without checks scores null, not a pass or a fail, and keeps its retrieval metrics", () => {
  const question = { id: "q", question: "q?", checks: [], evidence: [{ id: "a", grade: 1 }] };
  const result = scoreTrace(trace(), question, { retrievalK: [1, 2] });
  assert.equal(result.answer_score, null);
  assert.equal(result.passed, null);
  assert.deepEqual(result.retrieval.ranking, ["b", "a"]);
  assert.equal(result.retrieval.metrics!["recall@1"], 0);
  assert.equal(result.retrieval.metrics!["mrr@2"], 0.5);
  const errored = scoreTrace(trace({ kind: "internal", message: "x" }), question);
  assert.equal(errored.answer_score, null);
  assert.equal(errored.passed, null);
  const checked = scoreTrace(trace({ kind: "internal", message: "x" }), {
    ...question,
    checks: [{ type: "contains", value: "x" }],
  });
  assert.equal(checked.answer_score, 0);
  assert.equal(checked.passed, false);
});
