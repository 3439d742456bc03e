import assert from "node:assert/strict";
import { mean, percentile } from "../../../lib/score/stats.ts";
import { summaryTable } from "../../../lib/report/console_table.ts";
import { summarizeSystem, summaryColumns, toolUsage } from "../../../lib/score/summary.ts";
import type { QuestionResult, Step } from "../../../lib/types.ts";

function line(overrides: Partial<QuestionResult> & { steps?: Step[] } = {}): QuestionResult {
  return {
    system: "s",
    model: "test:model",
    question_id: "q",
    repeat: 1,
    question: "?",
    kind: null,
    tags: [],
    answer: "a",
    passed: true,
    answer_score: 1,
    failure_label: null,
    checks: [],
    error: null,
    flags: { best_effort: false, budget_exhausted: false, format_error: false },
    format_errors: 0,
    usage: { input_tokens: 10, output_tokens: 5 },
    cost_usd: 0.5,
    latency_ms: 100,
    retrieval: {
      retrieved: false,
      relevant: 0,
      recall: null,
      mrr: null,
      metrics: null,
      ranking: [],
      scores: [],
    },
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
    steps: [],
    ...overrides,
  };
}

function tool(
  name: string,
  opts: { error?: boolean; truncated?: boolean; latency?: number; cost?: number } = {},
): Step {
  return {
    type: "tool",
    tool: name,
    call_id: "c",
    args: {},
    result: {
      output: "",
      error: opts.error ? { kind: "timeout", message: "slow" } : null,
      truncated: opts.truncated ?? false,
      cost_usd: opts.cost ?? 0,
      latency_ms: opts.latency ?? 2,
    },
  };
}

Deno.test("stats: mean and interpolated percentiles; empty lists give null", () => {
  assert.equal(mean([1, 2, 3, 4]), 2.5);
  assert.equal(percentile([10, 20, 30, 40], 50), 25);
  assert.equal(percentile([10, 20, 30, 40], 95), 38.5);
  assert.equal(percentile([7], 95), 7);
  assert.equal(mean([]), null);
  assert.equal(percentile([], 50), null);
});

Deno.test("summary: errored lines count in the denominators and in errors", () => {
  const rows = [
    line({ latency_ms: 100 }),
    line({ passed: false, answer_score: 0.5, latency_ms: 300 }),
    line({
      passed: false,
      answer_score: 0,
      error: { kind: "model", message: "x" },
      answer: null,
      latency_ms: 200,
    }),
  ];
  const s = summarizeSystem({ name: "s", type: "closed_book", model: "test:model" }, rows);
  assert.equal(s.questions, 3);
  assert.equal(s.errors, 1);
  assert.equal(s.answer_score, 0.5);
  assert.equal(s.accuracy, 1 / 3);
  assert.equal(s.p50_latency_ms, 200);
  assert.equal(s.total_cost_usd, 1.5);
  assert.equal(s.cost_per_question, 0.5);
  assert.equal(s.avg_tokens, 15);
  assert.equal(s.tool_error_rate, null, "no calls: no rate, not 0");
  assert.equal(s.required_tool_used_rate, null);
});

Deno.test("summary: tool rates and required_tool_used_rate over the questions that declare tools", () => {
  const rows = [
    line({
      trajectory: {
        ...line().trajectory,
        tool_calls: 3,
        tool_errors: 1,
        required_tools_used: true,
      },
    }),
    line({
      trajectory: {
        ...line().trajectory,
        tool_calls: 1,
        tool_errors: 0,
        required_tools_used: false,
      },
    }),
    line(),
  ];
  const s = summarizeSystem({ name: "s", type: "agent_search", model: "test:model" }, rows);
  assert.equal(s.avg_tool_calls, 4 / 3);
  assert.equal(s.tool_error_rate, 0.25);
  assert.equal(s.required_tool_used_rate, 0.5);
});

Deno.test("summary: lines without checks are left out of answer means and counted out of checked", () => {
  const rows = [
    line({ passed: true, answer_score: 1 }),
    line({ passed: null, answer_score: null }),
    line({ passed: false, answer_score: 0.5 }),
  ];
  const s = summarizeSystem({ name: "s", type: "rag", model: "test:model" }, rows);
  assert.equal(s.questions, 3);
  assert.equal(s.checked, 2);
  assert.equal(s.answer_score, 0.75);
  assert.equal(s.accuracy, 0.5);
  const none = summarizeSystem({ name: "s", type: "retrieval_only", model: "test:model" }, [
    rows[1],
  ]);
  assert.equal(none.answer_score, null);
  assert.equal(none.accuracy, null);
  const table = summaryTable([s, none]);
  assert.match(table, /^s +3 +0\.750 +1\/2 /m);
  assert.match(table, /^s +1 +- +- /m);
});

function retrieving(metrics: Record<string, number> | null, retrieved = true): QuestionResult {
  return line({
    retrieval: { ...line().retrieval, retrieved, metrics, relevant: metrics ? 1 : 0 },
  });
}

Deno.test("summary: retrieval columns are means over the lines with evidence, empty for a system that never retrieves", () => {
  const m = (v: number) => ({
    map: v,
    "recall@2": v,
    "precision@2": v / 2,
    "mrr@2": v,
    "ndcg@2": v,
    "hit_rate@2": v,
  });
  const rows = [retrieving(m(1)), retrieving(m(0)), retrieving(null)];
  const s = summarizeSystem({ name: "s", type: "rag", model: "test:model", tools: [] }, rows, {
    retrievalK: [2],
  });
  assert.equal(s.map, 0.5);
  assert.equal(s["ndcg@2"], 0.5);
  assert.equal(s["precision@2"], 0.25);
  assert.deepEqual(
    summaryColumns([2]).slice(-6),
    ["map", "recall@2", "precision@2", "mrr@2", "ndcg@2", "hit_rate@2"],
  );
  // A closed-book system's lines retrieved nothing and it offers no retrieval tool: empty cells.
  const closed = summarizeSystem(
    { name: "c", type: "closed_book", model: "test:model", tools: [] },
    [retrieving(m(0), false)],
    { retrievalK: [2] },
  );
  assert.equal(closed["ndcg@2"], null);
  assert.equal(closed.map, null);
  // An agent that offers search but never called it scores 0, not empty.
  const lazy = summarizeSystem(
    { name: "a", type: "agent_search", model: "test:model", tools: ["search"] },
    [retrieving(m(0), false)],
    { retrievalK: [2] },
  );
  assert.equal(lazy["ndcg@2"], 0);
  const table = summaryTable([s, closed], { retrievalK: [2] });
  assert.match(table, /nDCG@2 +R@2/);
  assert.match(table, /^s +3 +1\.000 +3\/3 +0\.500 +0\.500 /m);
});

Deno.test("tool usage: a row for every offered tool, zero calls included, then unknown ones", () => {
  const rows = [
    line({
      steps: [
        tool("search", { latency: 2 }),
        tool("search", { error: true, latency: 4 }),
        tool("serch"),
      ],
    }),
    line({ steps: [tool("search", { truncated: true, cost: 0.01, latency: 6 })] }),
  ];
  const usage = toolUsage("s", ["search", "calculator"], rows);
  assert.deepEqual(usage.map((u) => u.tool), ["search", "calculator", "serch"]);
  assert.deepEqual(usage[0], {
    system: "s",
    tool: "search",
    calls: 3,
    errors: 1,
    error_rate: 1 / 3,
    truncated: 1,
    questions_using: 2,
    avg_latency_ms: 4,
    total_cost_usd: 0.01,
  });
  assert.deepEqual(usage[1], {
    system: "s",
    tool: "calculator",
    calls: 0,
    errors: 0,
    error_rate: null,
    truncated: 0,
    questions_using: 0,
    avg_latency_ms: null,
    total_cost_usd: 0,
  });
});

Deno.test("summary: answer score with and without required tools, trajectory averages, format errors and failure counts", () => {
  const traj = (over: Partial<QuestionResult["trajectory"]>): QuestionResult["trajectory"] => ({
    ...line().trajectory,
    ...over,
  });
  const rows = [
    line({
      answer_score: 1,
      trajectory: traj({ required_tools_used: true, steps_to_evidence: 1, scored_searches: 2 }),
    }),
    line({
      answer_score: 0,
      passed: false,
      failure_label: "tool_error",
      trajectory: traj({ required_tools_used: false, scored_searches: 2, redundant_searches: 1 }),
    }),
    line({
      answer_score: 0.5,
      passed: false,
      failure_label: "format_error",
      format_errors: 3,
      trajectory: traj({ steps_to_evidence: 3 }),
    }),
    line({ answer_score: 0, passed: false, failure_label: "format_error" }),
  ];
  const s = summarizeSystem({ name: "s", type: "agent_search", model: "m" }, rows);
  assert.equal(s.answer_score_requires_tools, 0.5);
  assert.equal(s.answer_score_no_required_tools, 0.25);
  assert.equal(s.avg_steps_to_evidence, 2);
  assert.equal(s.redundant_search_rate, 0.25);
  assert.equal(s.format_errors, 3);
  assert.equal(s.failures_tool_error, 1);
  assert.equal(s.failures_format_error, 2);
  assert.equal(s.failures_other, 0);
  const empty = summarizeSystem({ name: "e", type: "closed_book", model: "m" }, [line()]);
  assert.equal(empty.answer_score_requires_tools, null);
  assert.equal(empty.avg_steps_to_evidence, null);
  assert.equal(empty.redundant_search_rate, null, "no search: no rate");
});

Deno.test("summary: a line from an older run without the agent fields counts as zero, never NaN", () => {
  const old = line({ passed: false, answer_score: 0 }) as unknown as Record<string, unknown>;
  delete old.format_errors;
  delete old.failure_label;
  const trajectory = { ...(old.trajectory as Record<string, unknown>) };
  delete trajectory.scored_searches;
  delete trajectory.redundant_searches;
  old.trajectory = trajectory;
  const s = summarizeSystem(
    { name: "s", type: "agent_search", model: "m" },
    [old as unknown as QuestionResult, line()],
  );
  assert.equal(s.format_errors, 0);
  assert.equal(s.redundant_search_rate, null);
  assert.equal(s.failures_other, 0);
});
