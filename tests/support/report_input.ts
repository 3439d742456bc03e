/**
 * Synthetic report inputs for the HTML report's tests: `n` questions per
 * system with answers, checks and a short trace each.
 *
 * @module
 */

import type { ReportInput } from "../../lib/report/html/report.ts";
import type { ReportLine } from "../../lib/report/html/question_data.ts";
import { recommend } from "../../lib/report/recommendation.ts";
import { runStats } from "../../lib/score/comparison.ts";

/** What a synthetic report can vary besides its systems and questions. */
export interface SyntheticOptions {
  /** The question text of question `i`. */
  question?: (i: number) => string;
  /** Lines with no answer checks, scored by retrieval alone (nDCG@10 from `ndcg`). */
  retrievalOnly?: boolean;
  /** nDCG@10 of system `s` on question `i` (every line gets retrieval metrics when given). */
  ndcg?: (s: number, i: number) => number;
  /** Cost per question and p50 latency of system `s` in the summaries (the plots' points). */
  point?: (s: number) => { cost: number; p50: number };
}

/** A report input for systems `names` over `questions` questions each. */
export function syntheticReport(
  names: readonly string[],
  questions: number,
  answer = "An answer.",
  options: SyntheticOptions = {},
): ReportInput {
  const lines: ReportLine[] = [];
  names.forEach((system, s) => {
    for (let i = 0; i < questions; i++) {
      const passed = (i * (s + 2)) % 3 !== 0;
      lines.push({
        system,
        question_id: `q${i}`,
        repeat: 1,
        question: options.question?.(i) ?? `What is the height of tower number ${i}?`,
        kind: i % 2 ? "single_hop" : "multi_hop",
        tags: i % 5 === 0 ? ["towers"] : [],
        answer: `${answer} (${i})`,
        passed: options.retrievalOnly ? null : passed,
        answer_score: options.retrievalOnly ? null : passed ? 1 : 0.5,
        ...(options.ndcg || options.retrievalOnly
          ? {
            retrieval: {
              retrieved: true,
              metrics: { map: 0, "ndcg@10": options.ndcg?.(s, i) ?? (passed ? 1 : 0.25) },
            },
          }
          : {}),
        checks: options.retrievalOnly ? [] : [
          {
            type: "numeric_equals",
            passed,
            detail: passed ? "found 330" : "no number within 0 of 330",
          },
          { type: "min_tool_calls", passed: true, detail: "1 tool call (at least 1)" },
        ],
        error: null,
        latency_ms: 10 + s * 5 + (i % 7),
        cost_usd: 0.0001 * (s + 1),
        failure_label: options.retrievalOnly || passed ? null : "generation_miss",
        steps: [
          {
            type: "model",
            usage: { input_tokens: 10, output_tokens: 2 },
            cost_usd: 0,
            content: null,
            tool_calls: [{ id: "c1", name: "search", arguments: '{"query":"tower"}' }],
            latency_ms: 1,
            final: false,
          },
          {
            type: "tool",
            tool: "search",
            call_id: "c1",
            args: { query: "tower" },
            result: {
              output: "[1] doc_id: tower | passage: tower#0\nThe tower is 330 metres tall.",
              error: null,
              truncated: false,
              cost_usd: 0,
              latency_ms: 0.5,
            },
          },
          {
            type: "model",
            usage: { input_tokens: 10, output_tokens: 2 },
            cost_usd: 0,
            content: `${answer} (${i})`,
            tool_calls: [],
            latency_ms: 1,
            final: false,
          },
        ],
      });
    }
  });
  const systems = names.map((name) => ({ name, type: "agent_search", model: "mock:gpt-4o-mini" }));
  const summaries = names.map((system, s) => ({
    system,
    type: "agent_search",
    questions,
    errors: 0,
    cost_per_question: options.point?.(s).cost ?? 0.0001 * (s + 1),
    p50_latency_ms: options.point?.(s).p50 ?? 10 + s * 5,
    avg_tool_calls: 1,
    best_effort_rate: 0,
    evidence_recall: 1,
    mrr: 1,
  }));
  const toolUsage = names.map((system) => ({
    system,
    tool: "search",
    calls: questions,
    errors: 0,
    error_rate: 0,
    truncated: 0,
    questions_using: questions,
    avg_latency_ms: 0.5,
    total_cost_usd: 0,
  }));
  const stats = runStats(names, lines, options.retrievalOnly ? { metric: "ndcg@10" } : {});
  const recommendation = recommend(
    summaries.map((s) => ({
      ...s,
      model: "mock:gpt-4o-mini",
      budget_exhausted: 0,
      network_tools: [],
    })),
    stats,
  );
  return {
    run: { name: "synthetic", dir: "runs/synthetic" },
    systems,
    summaries,
    toolUsage,
    lines,
    stats,
    recommendation,
  };
}
