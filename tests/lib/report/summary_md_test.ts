import assert from "node:assert/strict";
import { recommend } from "../../../lib/report/recommendation.ts";
import { summaryMarkdown } from "../../../lib/report/summary_md.ts";
import { runStats, type ScoredLine } from "../../../lib/score/comparison.ts";

function lines(system: string, scores: number[]): ScoredLine[] {
  return scores.map((s, i) => ({
    system,
    question_id: `q${i}`,
    repeat: 1,
    answer_score: s,
    passed: s === 1,
  }));
}

Deno.test("summaryMarkdown: table with intervals, recommendation and comparisons", () => {
  const stats = runStats(["a", "b"], [...lines("a", [1, 1, 1, 1]), ...lines("b", [0, 0, 0, 0])]);
  const rows = stats.systems.map((s, i) => ({
    system: s.system,
    model: i === 0 ? "mock:x|y" : null,
    questions: 4,
    errors: 0,
    cost_per_question: i === 0 ? 0.00123 : null,
    p50_latency_ms: 12.34,
    avg_tool_calls: i === 0 ? 1.5 : null,
    stats: s,
  }));
  const rec = recommend(
    rows.map((r) => ({
      ...r,
      best_effort_rate: 0,
      budget_exhausted: 0,
      network_tools: [],
    })),
    stats,
  );
  const md = summaryMarkdown({ name: "demo", dir: "runs/demo" }, rows, rec, stats.pairs);
  const expectedStart = [
    "# ragbench: demo",
    "",
    "Run directory: `runs/demo`",
    "",
    "| system | model | questions | score [95 % CI] | accuracy [95 % CI] | $/question | p50 ms | tool calls/q | errors |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    "| a | mock:x\\|y | 4 | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | $0.00123 | 12.3 | 1.50 | 0 |",
    // Its cost is unknown (no price): an empty cell, never $0.
    "| b | - | 4 | 0.000 [0.000, 0.000] | 0.000 [0.000, 0.000] |  | 12.3 | - | 0 |",
    "",
    "## Recommendation",
    "",
  ].join("\n");
  assert.ok(md.startsWith(expectedStart), md);
  // Four wins out of four: exact sign-flip p = 2/16, and no difference is rejected, so the interval
  // is the whole range: the sentence says why, and never calls the interval decisive.
  assert.match(
    md,
    /## Paired comparisons \(answer score\)\n\n- a and b cannot be separated: all 4 questions differ, but no test at 5 % can decide with fewer than 6 differing; difference \+1\.000 \[-1\.000, \+1\.000\], p = 0\.125\n$/,
  );
});

Deno.test("summaryMarkdown: a system whose every question errored comes first; retrieval metrics get columns", () => {
  const retrieval = (system: string, values: number[]): ScoredLine[] =>
    values.map((v, i) => ({
      system,
      question_id: `q${i}`,
      repeat: 1,
      answer_score: null,
      passed: null,
      retrieval: { metrics: { "ndcg@10": v } },
    }));
  const stats = runStats(["bm25", "dead"], retrieval("bm25", [0.5, 0.7, 0.6]), {
    metric: "ndcg@10",
  });
  const rows = stats.systems.map((s, i) => ({
    system: s.system,
    model: null,
    questions: 3,
    errors: i === 1 ? 3 : 0,
    cost_per_question: 0,
    p50_latency_ms: 1,
    avg_tool_calls: 0,
    stats: s,
    ...(i === 0 ? { retrieval: { "ndcg@10": 0.6, "recall@100": 0.75 } } : {}),
  }));
  const rec = recommend(
    rows.map((r, i) => ({
      ...r,
      best_effort_rate: 0,
      budget_exhausted: 0,
      network_tools: [],
      first_error: i === 1
        ? "Model API at http://127.0.0.1:1/v1 could not be reached: connection refused."
        : null,
    })),
    stats,
  );
  const md = summaryMarkdown({ name: "beir", dir: "runs/beir" }, rows, rec, stats.pairs);
  assert.ok(
    md.startsWith(
      [
        "# ragbench: beir",
        "",
        "Run directory: `runs/beir`",
        "",
        "**Failed:** dead: every question errored (3 of 3), so its figures mean nothing; the first error: Model API at http://127.0.0.1:1/v1 could not be reached: connection refused.",
        "",
        "| system | model | questions | nDCG@10 [95 % CI] | recall@100 | $/question | p50 ms | tool calls/q | errors |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        "| bm25 | - | 3 | 0.600 [0.500, 0.700] | 0.750 | $0.00 | 1.0 | 0.00 | 0 |",
        "| dead | - | 3 | - | - | $0.00 | 1.0 | 0.00 | 3 |",
      ].join("\n"),
    ),
    md,
  );
  assert.match(
    md,
    /^- best nDCG@10: bm25 \(nDCG@10 0\.600 .*; the only system ranked on nDCG@10$/m,
  );
});

Deno.test("summaryMarkdown: what building the indexes cost, apart from $/question", () => {
  const stats = runStats(["a"], lines("a", [1, 0]));
  const rows = stats.systems.map((s) => ({
    system: s.system,
    model: null,
    questions: 2,
    errors: 0,
    cost_per_question: 0.001,
    p50_latency_ms: 1,
    avg_tool_calls: null,
    stats: s,
  }));
  const rec = recommend(
    rows.map((r) => ({ ...r, best_effort_rate: 0, budget_exhausted: 0, network_tools: [] })),
    stats,
  );
  const records = [
    {
      retriever: "dense",
      passages: 1200,
      embedder: "openai:m|x",
      tokens: 90000,
      cost_usd: 0.0018,
      cached: 0,
    },
    {
      retriever: "dense",
      passages: 1200,
      embedder: "openai:m|x",
      tokens: 0,
      cost_usd: 0,
      cached: 1200,
    },
  ];
  const md = summaryMarkdown({ name: "demo", dir: "runs/demo" }, rows, rec, stats.pairs, records);
  assert.ok(
    md.endsWith(
      [
        "## Building the indexes",
        "",
        "Embedding the passages cost $0.0018 in all; this is not in `$/question`. " +
        "Passages found in the embedding cache cost nothing.",
        "",
        "| retriever | embedder | passages | from the cache | tokens | cost |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
        "| dense | openai:m\\|x | 1200 | 0 | 90000 | $0.0018 |",
        "| dense | openai:m\\|x | 1200 | 1200 | 0 | $0.0000 |",
        "",
      ].join("\n"),
    ),
    md,
  );
  // Without records (a BM25-only run) there is no such section.
  assert.ok(!summaryMarkdown({ name: "d", dir: "r" }, rows, rec, stats.pairs).includes("indexes"));
});

Deno.test("summaryMarkdown with repeats: questions × repeats, a flip-rate column, and depth marks with their note", () => {
  // Two questions × two repeats each; a's verdict on q0 flips between its repeats.
  const scored: ScoredLine[] = [
    { system: "a", question_id: "q0", repeat: 1, answer_score: 1, passed: true },
    { system: "a", question_id: "q0", repeat: 2, answer_score: 0, passed: false },
    { system: "a", question_id: "q1", repeat: 1, answer_score: 1, passed: true },
    { system: "a", question_id: "q1", repeat: 2, answer_score: 1, passed: true },
    { system: "b", question_id: "q0", repeat: 1, answer_score: 0, passed: false },
    { system: "b", question_id: "q0", repeat: 2, answer_score: 0, passed: false },
    { system: "b", question_id: "q1", repeat: 1, answer_score: 0, passed: false },
  ];
  const stats = runStats(["a", "b"], scored);
  const rows = stats.systems.map((s) => ({
    system: s.system,
    model: null,
    questions: scored.filter((l) => l.system === s.system).length,
    errors: 0,
    cost_per_question: 0,
    p50_latency_ms: 1,
    avg_tool_calls: 0,
    stats: s,
    retrieval: { "ndcg@10": 0.5 },
    retrieval_depth: s.system === "a" ? 5 : null,
  }));
  const rec = recommend(
    rows.map((r) => ({ ...r, best_effort_rate: 0, budget_exhausted: 0, network_tools: [] })),
    stats,
  );
  const md = summaryMarkdown({ name: "demo", dir: "runs/demo" }, rows, rec, stats.pairs);
  const table = md.split("\n").filter((l) => l.startsWith("| "));
  assert.equal(
    table[0],
    "| system | model | questions | score [95 % CI] | accuracy [95 % CI] | flip rate | nDCG@10 | $/question | p50 ms | tool calls/q | errors |",
  );
  assert.match(table[2], /^\| a \| - \| 2 × 2 \| .* \| 50\.0 % \| 0\.500\\\* \|/);
  assert.match(table[3], /^\| b \| - \| 2 \(3 runs\) \| .* \| 0\.0 % \| 0\.500 \|/);
  assert.match(
    md,
    /\n\\\* a: a ranking held only 5 documents \(the retriever's top_k passages came from no more\), so metrics at larger cut-offs count fewer documents than they name\n/,
  );
});
