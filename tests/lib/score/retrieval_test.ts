import assert from "node:assert/strict";
import { docIdsOf, fuseRankings, retrievalScores } from "../../../lib/score/retrieval.ts";
import { trajectoryScores } from "../../../lib/score/trajectory.ts";
import type { JsonValue, Step } from "../../../lib/types.ts";

function toolStep(tool: string, args: JsonValue, ids: string[], error = false): Step {
  return {
    type: "tool",
    tool,
    call_id: "c",
    args,
    result: {
      output: "",
      data: { results: ids.map((doc_id) => ({ doc_id })) },
      error: error ? { kind: "execution", message: "x" } : null,
      truncated: false,
      cost_usd: 0,
      latency_ms: 1,
    },
  };
}

const model: Step = {
  type: "model",
  usage: { input_tokens: 1, output_tokens: 1 },
  cost_usd: 0,
  latency_ms: 1,
  content: null,
  tool_calls: [],
  final: false,
};

Deno.test("docIdsOf reads data.results or a list of {doc_id}, in order, without repeats", () => {
  assert.deepEqual(docIdsOf({ results: [{ doc_id: "b" }, { doc_id: "a" }, { doc_id: "b" }] }), [
    "b",
    "a",
  ]);
  assert.deepEqual(docIdsOf([{ doc_id: "x" }, { other: 1 }, "y"]), ["x"]);
  assert.deepEqual(docIdsOf({ doc_id: "lonely" }), []);
  assert.deepEqual(docIdsOf(undefined), []);
});

Deno.test("fuseRankings merges with reciprocal rank fusion, ties in first-seen order", () => {
  assert.deepEqual(fuseRankings([["a", "b", "c"], ["b", "c"]]), ["b", "c", "a"]);
  assert.deepEqual(fuseRankings([["a"], ["b"]]), ["a", "b"]);
  assert.deepEqual(fuseRankings([]), []);
});

Deno.test("retrieval scores: recall and mrr over the merged ranking of retrieval tools only", () => {
  const steps = [
    model,
    toolStep("search", { query: "x" }, ["d1", "d2"]),
    toolStep("custom_lookup", {}, ["e1"]),
    toolStep("search", { query: "y" }, ["e2"], true),
    toolStep("read_document", { doc_id: "e3" }, ["e3"]),
  ];
  const scores = retrievalScores(steps, ["e3", "zz"]);
  assert.deepEqual(scores.ranking, ["d1", "e3", "d2"]);
  assert.equal(scores.recall, 0.5);
  assert.equal(scores.mrr, 0.5);
  assert.deepEqual(retrievalScores(steps, undefined), {
    recall: null,
    mrr: null,
    ranking: ["d1", "e3", "d2"],
  });
  assert.equal(retrievalScores(steps, ["nowhere"]).mrr, 0);
});

Deno.test("trajectory: calls, errors, distinct queries, steps to evidence, required tools", () => {
  const steps = [
    model,
    toolStep("search", { query: "Eiffel  tower" }, ["d1"]),
    model,
    toolStep("search", { query: "eiffel tower" }, ["d2"]),
    model,
    toolStep("calculator", { expression: "1" }, [], true),
  ];
  assert.deepEqual(
    trajectoryScores(steps, { evidence: ["d2"], requires_tools: ["search", "calculator"] }),
    {
      tool_calls: 3,
      tool_errors: 1,
      searches: 2,
      distinct_queries: 1,
      steps_to_evidence: 2,
      required_tools_used: true,
    },
  );
  const none = trajectoryScores(steps, { requires_tools: ["date_calc"] });
  assert.equal(none.steps_to_evidence, null);
  assert.equal(none.required_tools_used, false);
  assert.equal(trajectoryScores([], {}).required_tools_used, null);
});
