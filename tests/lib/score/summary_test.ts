import assert from "node:assert/strict";
import { mean, percentile } from "../../../lib/score/stats.ts";
import { summarizeSystem, toolUsage } from "../../../lib/score/summary.ts";
import type { QuestionResult, Step } from "../../../lib/types.ts";

function line(overrides: Partial<QuestionResult> & { steps?: Step[] } = {}): QuestionResult {
  return {
    system: "s",
    question_id: "q",
    repeat: 1,
    question: "?",
    kind: null,
    tags: [],
    answer: "a",
    passed: true,
    answer_score: 1,
    checks: [],
    error: null,
    flags: { best_effort: false, budget_exhausted: false },
    usage: { input_tokens: 10, output_tokens: 5 },
    cost_usd: 0.5,
    latency_ms: 100,
    retrieval: { recall: null, mrr: null, ranking: [] },
    trajectory: {
      tool_calls: 0,
      tool_errors: 0,
      searches: 0,
      distinct_queries: 0,
      steps_to_evidence: null,
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
  const s = summarizeSystem({ name: "s", type: "closed_book" }, rows);
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
  const s = summarizeSystem({ name: "s", type: "agent_search" }, rows);
  assert.equal(s.avg_tool_calls, 4 / 3);
  assert.equal(s.tool_error_rate, 0.25);
  assert.equal(s.required_tool_used_rate, 0.5);
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
