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

Deno.test("fuseRankings merges with reciprocal rank fusion; ties by document id, descending", () => {
  assert.deepEqual(fuseRankings([["a", "b", "c"], ["b", "c"]]).map((d) => d.doc_id), [
    "b",
    "c",
    "a",
  ]);
  assert.deepEqual(fuseRankings([["a", "b", "c"], ["b", "c"]])[0].score, 1 / 62 + 1 / 61);
  assert.deepEqual(fuseRankings([["a"], ["b"]]).map((d) => d.doc_id), ["b", "a"]);
  assert.deepEqual(fuseRankings([]), []);
});

function retrievalStep(results: Array<[string, number]>, error = false): Step {
  return {
    type: "retrieval",
    retriever: "bm25",
    query: "q",
    results: results.map(([passage_id, score]) => ({
      passage_id,
      doc_id: passage_id.split("#")[0],
      score,
    })),
    latency_ms: 1,
    embedding_tokens: 0,
    cost_usd: 0,
    error: error ? { kind: "unavailable", message: "down" } : null,
  };
}

Deno.test("retrieval scores: recall and mrr over the merged ranking of retrieval tools only", () => {
  const steps = [
    model,
    toolStep("search", { query: "x" }, ["d1", "d2"]),
    toolStep("custom_lookup", {}, ["e1"]),
    toolStep("search", { query: "y" }, ["e2"], true),
    toolStep("read_document", { doc_id: "e3" }, ["e3"]),
  ];
  const scores = retrievalScores(steps, [{ id: "e3", grade: 1 }, { id: "zz", grade: 1 }], [1, 2]);
  // d1 and e3 tie at 1/61: the larger id comes first, as trec_eval orders ties.
  assert.deepEqual(scores.ranking, ["e3", "d1", "d2"]);
  assert.deepEqual(scores.scores, [1 / 61, 1 / 61, 1 / 62]);
  assert.equal(scores.recall, 0.5);
  assert.equal(scores.mrr, 1);
  assert.equal(scores.relevant, 2);
  assert.equal(scores.retrieved, true);
  assert.deepEqual(Object.keys(scores.metrics!), [
    "map",
    "recall@1",
    "recall@2",
    "precision@1",
    "precision@2",
    "mrr@1",
    "mrr@2",
    "ndcg@1",
    "ndcg@2",
    "hit_rate@1",
    "hit_rate@2",
  ]);
  assert.equal(scores.metrics!["precision@2"], 0.5);
  assert.equal(scores.metrics!.map, 0.5);
  assert.deepEqual(retrievalScores(steps, undefined), {
    retrieved: true,
    relevant: 0,
    recall: null,
    mrr: null,
    metrics: null,
    ranking: ["e3", "d1", "d2"],
    scores: [1 / 61, 1 / 61, 1 / 62],
    depth: null,
  });
  assert.equal(retrievalScores(steps, [{ id: "nowhere", grade: 1 }]).mrr, 0);
  assert.equal(retrievalScores([model], undefined).retrieved, false);
});

Deno.test("one retrieval step: its passages reduced to best passage per document, with its scores", () => {
  const step = retrievalStep([["a#2", 9], ["b#0", 7], ["a#0", 5], ["c#1", 7], ["d#0", 1]]);
  const scores = retrievalScores([step], [{ id: "c", grade: 2 }, { id: "d", grade: 1 }], [3]);
  // b and c tie at 7: "c" > "b", so c ranks second.
  assert.deepEqual(scores.ranking, ["a", "c", "b", "d"]);
  assert.deepEqual(scores.scores, [9, 7, 7, 1]);
  assert.equal(scores.metrics!["recall@3"], 0.5);
  assert.equal(scores.metrics!["mrr@3"], 0.5);
  assert.equal(scores.metrics!.map, (1 / 2 + 2 / 4) / 2);
  const idcg = 2 + 1 / Math.log2(3);
  assert.equal(scores.metrics!["ndcg@3"], (2 / Math.log2(3)) / idcg);
});

Deno.test("a failed retrieval step counts as retrieving but ranks nothing; a second source is fused", () => {
  const failed = retrievalScores([retrievalStep([], true)], [{ id: "a", grade: 1 }], [1]);
  assert.equal(failed.retrieved, true);
  assert.deepEqual(failed.ranking, []);
  assert.equal(failed.metrics!["recall@1"], 0);
  const both = retrievalScores(
    [retrievalStep([["a#0", 3], ["b#0", 2]]), toolStep("search", { query: "x" }, ["b"])],
    undefined,
  );
  assert.deepEqual(both.ranking, ["b", "a"]);
  assert.deepEqual(both.scores, [1 / 62 + 1 / 61, 1 / 61]);
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
    trajectoryScores(steps, {
      evidence: [{ id: "d2" }],
      requires_tools: ["search", "calculator"],
    }),
    {
      tool_calls: 3,
      tool_errors: 1,
      searches: 2,
      distinct_queries: 1,
      steps_to_evidence: 2,
      scored_searches: 2,
      redundant_searches: 1,
      required_tools_used: true,
    },
  );
  const none = trajectoryScores(steps, { requires_tools: ["date_calc"] });
  assert.equal(none.steps_to_evidence, null);
  assert.equal(none.required_tools_used, false);
  assert.equal(trajectoryScores([], {}).required_tools_used, null);
});

Deno.test("trajectory: a retrieval step counts as a search that sees its documents, not a tool call", () => {
  const steps = [retrievalStep([["x#0", 2], ["d2#1", 1]]), model];
  assert.deepEqual(trajectoryScores(steps, { evidence: [{ id: "d2" }] }), {
    tool_calls: 0,
    tool_errors: 0,
    searches: 1,
    distinct_queries: 1,
    steps_to_evidence: 0,
    scored_searches: 1,
    redundant_searches: 0,
    required_tools_used: null,
  });
});
