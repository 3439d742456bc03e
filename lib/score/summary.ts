/**
 * Per-system summaries (`metrics_summary.csv`) and per-tool usage
 * (`tool_usage.csv`) from the scored result lines. Denominators are honest:
 * every line counts, errored ones included (they score 0 and are counted in
 * `errors`); a rate with no denominator is null (an empty CSV cell), never 0.
 *
 * @module
 */

import { addCost } from "../llm/model.ts";
import type { QuestionResult } from "../types.ts";
import { DEFAULT_RETRIEVAL_K } from "./retrieval.ts";
import { retrievalColumns, retrievalSummary, systemRetrieves } from "./retrieval_summary.ts";
import {
  AGENT_COLUMNS,
  type AgentSummary,
  agentSummary,
  TOOL_VALUE_COLUMNS,
  type ToolValueSummary,
  toolValueSummary,
} from "./agent_summary.ts";
import { fewestRanked } from "./shallow_figures.ts";
import { mean, percentile } from "./stats.ts";
import {
  RATE_LIMIT_COLUMNS,
  type RateLimitSummary,
  rateLimitSummary,
} from "./rate_limit_summary.ts";

/** One row of `metrics_summary.csv`. */
export type SystemSummary = CoreSummary & ToolValueSummary & AgentSummary & RateLimitSummary;

/** The core columns of a system's row. */
interface CoreSummary {
  system: string;
  type: string;
  /**
   * Id of the system's model, e.g. `openai:gpt-4o` (`mock:gpt-4o` under
   * --mock); null when unknown (a report re-rendered from an older run).
   */
  model: string | null;
  /** Result lines (questions × repeats) of the system. */
  questions: number;
  /** Lines whose question has checks: the denominator of answer_score and accuracy. */
  checked: number;
  /** Mean share of checks passed, over the checked lines. */
  answer_score: number | null;
  /** Share of checked lines where every check passed. */
  accuracy: number | null;
  errors: number;
  avg_latency_ms: number | null;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  /** US dollars billed; null when some line's cost is unknown (a model with no known price). */
  total_cost_usd: number | null;
  /** `total_cost_usd` / questions; null when unknown or there are no lines. */
  cost_per_question: number | null;
  /** Mean input + output tokens per line. */
  avg_tokens: number | null;
  /** Mean model turns per line. */
  avg_steps: number | null;
  avg_tool_calls: number | null;
  /** Share of tool calls that returned an error; null when no call was made. */
  tool_error_rate: number | null;
  /** Over lines whose question declares requires_tools: share that called them all. */
  required_tool_used_rate: number | null;
  /** Mean evidence recall over lines whose question has evidence. */
  evidence_recall: number | null;
  mrr: number | null;
  /** Share of lines answered under a limit (best effort). */
  best_effort_rate: number | null;
  /**
   * The fewest documents a ranking of the system held when its retrieval depth (`top_k`) cut it
   * short (`RetrievalScores.depth`); null when no depth cut any. A metric at a cut-off above it is
   * computed on fewer documents than its name says: the console marks it with `*`.
   */
  retrieval_depth?: number | null;
  /** Mean average precision (see `retrieval_summary.ts`). */
  map?: number | null;
  /** `recall@k`, `precision@k`, `mrr@k`, `ndcg@k`, `hit_rate@k` (see `retrieval_summary.ts`). */
  [metric: `${string}@${number}`]: number | null;
}

/** One row of `tool_usage.csv`. */
export interface ToolUsage {
  system: string;
  tool: string;
  calls: number;
  errors: number;
  error_rate: number | null;
  /** Outputs cut at max_output_chars. */
  truncated: number;
  /** Lines in which the tool was called at least once. */
  questions_using: number;
  avg_latency_ms: number | null;
  /** US dollars; null when some call's cost is unknown (a search whose embedding price is). */
  total_cost_usd: number | null;
}

/** The fixed columns of `metrics_summary.csv`, before the retrieval ones. */
export const SUMMARY_COLUMNS: ReadonlyArray<keyof SystemSummary> = [
  "system",
  "type",
  "model",
  "questions",
  "checked",
  "answer_score",
  "accuracy",
  "errors",
  "avg_latency_ms",
  "p50_latency_ms",
  "p95_latency_ms",
  "total_cost_usd",
  "cost_per_question",
  "avg_tokens",
  "avg_steps",
  "avg_tool_calls",
  "tool_error_rate",
  "required_tool_used_rate",
  ...TOOL_VALUE_COLUMNS,
  "evidence_recall",
  "mrr",
  "best_effort_rate",
  ...RATE_LIMIT_COLUMNS,
  ...AGENT_COLUMNS,
];

/** Every column of `metrics_summary.csv` for these retrieval cut-offs, in order. */
export function summaryColumns(
  retrievalK: readonly number[] = DEFAULT_RETRIEVAL_K,
): Array<keyof SystemSummary> {
  return [
    ...SUMMARY_COLUMNS,
    "retrieval_depth",
    ...(retrievalColumns(retrievalK) as Array<keyof SystemSummary>),
  ];
}

/** The column order of `tool_usage.csv`. */
export const TOOL_USAGE_COLUMNS: ReadonlyArray<keyof ToolUsage> = [
  "system",
  "tool",
  "calls",
  "errors",
  "error_rate",
  "truncated",
  "questions_using",
  "avg_latency_ms",
  "total_cost_usd",
];

/**
 * Summarises the lines of one system. `system.tools` (the offered tools)
 * decides, with the lines, whether the system retrieves; `retrievalK` gives
 * the retrieval cut-offs (default [1, 5, 10]).
 */
export function summarizeSystem(
  system: { name: string; type: string; model: string | null; tools?: readonly string[] },
  lines: readonly QuestionResult[],
  options: { retrievalK?: readonly number[] } = {},
): SystemSummary {
  const n = lines.length;
  let toolCalls = 0;
  let toolErrors = 0;
  let cost: number | null = 0;
  for (const line of lines) {
    toolCalls += line.trajectory.tool_calls;
    toolErrors += line.trajectory.tool_errors;
    cost = addCost(cost, line.cost_usd);
  }
  const required = lines
    .map((l) => l.trajectory.required_tools_used)
    .filter((v): v is boolean => v !== null);
  const recall = lines.map((l) => l.retrieval.recall).filter((v): v is number => v !== null);
  const mrr = lines.map((l) => l.retrieval.mrr).filter((v): v is number => v !== null);
  const latencies = lines.map((l) => l.latency_ms);
  const checked = lines.filter((l) => l.answer_score !== null);
  const retrievalK = options.retrievalK ?? DEFAULT_RETRIEVAL_K;
  return {
    system: system.name,
    type: system.type,
    model: system.model,
    questions: n,
    checked: checked.length,
    answer_score: mean(checked.map((l) => l.answer_score!)),
    accuracy: mean(checked.map((l) => (l.passed ? 1 : 0))),
    errors: lines.filter((l) => l.error !== null).length,
    avg_latency_ms: mean(latencies),
    p50_latency_ms: percentile(latencies, 50),
    p95_latency_ms: percentile(latencies, 95),
    total_cost_usd: cost,
    cost_per_question: n === 0 || cost === null ? null : cost / n,
    avg_tokens: mean(lines.map((l) => l.usage.input_tokens + l.usage.output_tokens)),
    avg_steps: mean(lines.map((l) => l.steps.filter((s) => s.type === "model").length)),
    avg_tool_calls: n === 0 ? null : toolCalls / n,
    tool_error_rate: toolCalls === 0 ? null : toolErrors / toolCalls,
    required_tool_used_rate: mean(required.map((v) => (v ? 1 : 0))),
    ...toolValueSummary(lines),
    evidence_recall: mean(recall),
    mrr: mean(mrr),
    best_effort_rate: mean(lines.map((l) => (l.flags.best_effort ? 1 : 0))),
    ...rateLimitSummary(lines),
    ...agentSummary(lines),
    retrieval_depth: fewestRanked(lines),
    ...retrievalSummary(lines, retrievalK, systemRetrieves(system.tools ?? [], lines)),
  };
}

/**

/**
 * Tool usage of one system: a row for every offered tool (0 calls included),
 * in offered order, then rows for tools the model called that were not
 * offered (unknown tools), by name.
 */
export function toolUsage(
  system: string,
  offered: readonly string[],
  lines: readonly QuestionResult[],
): ToolUsage[] {
  const rows = new Map<string, ToolUsage & { latencies: number[] }>();
  const row = (tool: string) => {
    let r = rows.get(tool);
    if (!r) {
      r = {
        system,
        tool,
        calls: 0,
        errors: 0,
        error_rate: null,
        truncated: 0,
        questions_using: 0,
        avg_latency_ms: null,
        total_cost_usd: 0,
        latencies: [],
      };
      rows.set(tool, r);
    }
    return r;
  };
  for (const tool of offered) row(tool);
  for (const line of lines) {
    const usedHere = new Set<string>();
    for (const step of line.steps) {
      if (step.type !== "tool") continue;
      const r = row(step.tool);
      r.calls++;
      if (step.result.error) r.errors++;
      if (step.result.truncated) r.truncated++;
      r.total_cost_usd = addCost(r.total_cost_usd, step.result.cost_usd);
      r.latencies.push(step.result.latency_ms);
      usedHere.add(step.tool);
    }
    for (const tool of usedHere) row(tool).questions_using++;
  }
  const extra = [...rows.keys()].filter((t) => !offered.includes(t)).sort();
  return [...offered, ...extra].map((tool) => {
    const { latencies, ...r } = rows.get(tool)!;
    return {
      ...r,
      error_rate: r.calls ? r.errors / r.calls : null,
      avg_latency_ms: mean(latencies),
    };
  });
}
