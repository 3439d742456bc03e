import assert from "node:assert/strict";
import { headlineCutoffs, summaryTable } from "../../../lib/report/console_table.ts";
import { depthLimit, retrievalScores } from "../../../lib/score/retrieval.ts";
import { summarizeSystem } from "../../../lib/score/summary.ts";
import type { QuestionResult, RetrievalStep, Step } from "../../../lib/types.ts";

function retrieval(k: number | undefined, docs: string[]): RetrievalStep {
  return {
    type: "retrieval",
    retriever: "bm25",
    query: "q",
    ...(k === undefined ? {} : { k }),
    results: docs.map((doc_id, i) => ({ passage_id: `${doc_id}#${i}`, doc_id, score: 10 - i })),
    latency_ms: 0,
    embedding_tokens: 0,
    cost_usd: 0,
    error: null,
  };
}

Deno.test("a ranking is cut by depth when a system's own retrieval returned every passage it asked for", () => {
  // Five passages asked, five returned, from four documents: cut at four documents.
  const full = retrieval(5, ["a", "b", "b", "c", "d"]);
  assert.equal(depthLimit([full], 4), 4);
  assert.equal(retrievalScores([full], [{ id: "z", grade: 1 }]).depth, 4);
  // Fewer returned than asked: the retriever had no more, nothing was cut.
  assert.equal(depthLimit([retrieval(10, ["a", "b"])], 2), null);
  // A line of an older run (no k) and an agent's search calls are never marked.
  assert.equal(depthLimit([retrieval(undefined, ["a"])], 1), null);
  const search: Step = {
    type: "tool",
    tool: "search",
    call_id: "c",
    args: {},
    result: {
      output: "",
      data: { results: [] },
      error: null,
      truncated: false,
      cost_usd: 0,
      latency_ms: 0,
    },
  };
  assert.equal(depthLimit([full, search], 4), null);
});

Deno.test("retrieval_depth is the fewest documents a cut ranking held, and the console marks the figures past it", () => {
  const line = (id: string, docs: string[], k: number) =>
    ({
      system: "rag",
      question_id: id,
      retrieval: retrievalScores([retrieval(k, docs)], [{ id: "a", grade: 1 }], [1, 5, 10, 100]),
    }) as unknown as QuestionResult;
  const lines = [
    line("q1", ["a", "b", "c", "d", "e"], 5),
    line("q2", ["a", "a", "b", "c", "d"], 5),
  ];
  for (const l of lines) Object.assign(l, baseLine());
  const summary = summarizeSystem({ name: "rag", type: "rag", model: null }, lines, {
    retrievalK: [1, 5, 10, 100],
  });
  assert.equal(summary.retrieval_depth, 4);
  const table = summaryTable([summary], { retrievalK: [1, 5, 10, 100] });
  const [header, , row, , note] = table.split("\n");
  assert.match(header, /nDCG@10 +R@100/);
  assert.match(row, / 1\.000\* +1\.000\* /);
  assert.equal(
    note,
    "* rag: a ranking held only 4 documents (the retriever's top_k passages came from no more), so metrics at larger cut-offs count fewer documents than they name",
  );
  // Systems cut to the same depth share one note (the bench's three rag systems print one line).
  const twin = summarizeSystem({ name: "rag_b", type: "rag", model: null }, lines, {
    retrievalK: [1, 5, 10, 100],
  });
  const notes = summaryTable([summary, twin], { retrievalK: [1, 5, 10, 100] }).split("\n")
    .filter((l) => l.startsWith("* "));
  assert.deepEqual(notes, [
    "* rag, rag_b: a ranking held only 4 documents (the retriever's top_k passages came from no more), so metrics at larger cut-offs count fewer documents than they name",
  ]);
});

Deno.test("the console headline is nDCG@10 beside R@100, or the nearest cut-offs the run has", () => {
  assert.deepEqual(headlineCutoffs([1, 5, 10, 100]), { ndcg: 10, recall: 100 });
  assert.deepEqual(headlineCutoffs([10, 100]), { ndcg: 10, recall: 100 });
  assert.deepEqual(headlineCutoffs([1, 5]), { ndcg: 5, recall: 5 });
  assert.deepEqual(headlineCutoffs([20, 50]), { ndcg: 20, recall: 50 });
  assert.deepEqual(headlineCutoffs([]), { ndcg: 10, recall: 10 });
});

function baseLine(): Partial<QuestionResult> {
  return {
    model: "m",
    repeat: 1,
    answer: null,
    answer_score: null,
    passed: null,
    error: null,
    steps: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    cost_usd: 0,
    latency_ms: 1,
    flags: { best_effort: false, budget_exhausted: false, format_error: false },
    format_errors: 0,
    checks: [],
    failure_label: null,
    trajectory: {
      tool_calls: 0,
      tool_errors: 0,
      searches: 0,
      distinct_queries: 0,
      steps_to_evidence: null,
      scored_searches: 0,
      redundant_searches: 0,
      required_tools_used: null,
    },
  };
}
