/**
 * A complete result line (every field `lib/run/result_line.ts` requires),
 * for tests that write or read `per_question_results.jsonl` by hand.
 *
 * @module
 */

import type { QuestionResult } from "../../lib/types.ts";

/** A passing line of system `s`, question `q`, repeat 1, with `overrides` on top. */
export function resultLine(overrides: Partial<QuestionResult> = {}): QuestionResult {
  return {
    system: "s",
    model: "mock:m",
    question_id: "q",
    repeat: 1,
    question: "?",
    kind: null,
    tags: [],
    answer: "a",
    passed: true,
    answer_score: 1,
    failure_label: null,
    checks: [{ type: "contains", passed: true, detail: "" }],
    error: null,
    flags: { best_effort: false, budget_exhausted: false, format_error: false },
    format_errors: 0,
    usage: { input_tokens: 1, output_tokens: 1 },
    cost_usd: 0,
    latency_ms: 1,
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
