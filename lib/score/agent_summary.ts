/**
 * The agent columns of `metrics_summary.csv`: what the tools bought (the
 * answer score on questions that declare `requires_tools` and on those that
 * do not), the trajectory averages, the format errors of react_json agents,
 * and a count of each failure label. `summary.ts` spreads these into each
 * system's row; the column names are listed here. Denominators follow the
 * summary's rule: a rate with nothing to count is null (an empty cell).
 *
 * @module
 */

import { FAILURE_LABELS, type FailureLabel, type QuestionResult } from "../types.ts";
import { mean } from "./stats.ts";

/** The `failures_<label>` column of a label. */
export type FailureColumn = `failures_${FailureLabel}`;

/** The tool columns, shown beside `required_tool_used_rate`. */
export interface ToolValueSummary {
  /** Mean answer score over checked lines whose question declares `requires_tools`. */
  answer_score_requires_tools: number | null;
  /** Mean answer score over checked lines whose question declares none. */
  answer_score_no_required_tools: number | null;
}

/** The trajectory, format and failure columns. */
export type AgentSummary =
  & {
    /** Mean `steps_to_evidence` over lines where evidence surfaced at all. */
    avg_steps_to_evidence: number | null;
    /** Redundant searches / searches, over all lines (null without any search). */
    redundant_search_rate: number | null;
    /** Replies that were not a valid action (react_json), summed over lines. */
    format_errors: number;
  }
  & { [K in FailureColumn]: number };

/** Column names of {@link ToolValueSummary}, in order. */
export const TOOL_VALUE_COLUMNS: ReadonlyArray<keyof ToolValueSummary> = [
  "answer_score_requires_tools",
  "answer_score_no_required_tools",
];

/** Column names of {@link AgentSummary}, in order (labels in precedence order). */
export const AGENT_COLUMNS: ReadonlyArray<keyof AgentSummary> = [
  "avg_steps_to_evidence",
  "redundant_search_rate",
  "format_errors",
  ...FAILURE_LABELS.map((label) => `failures_${label}` as const),
];

/** The tool columns of one system's lines. */
export function toolValueSummary(lines: readonly QuestionResult[]): ToolValueSummary {
  const requiring: number[] = [];
  const rest: number[] = [];
  for (const line of lines) {
    // A question without checks has no answer score to average.
    if (line.answer_score === null) continue;
    (line.trajectory.required_tools_used === null ? rest : requiring).push(line.answer_score);
  }
  return {
    answer_score_requires_tools: mean(requiring),
    answer_score_no_required_tools: mean(rest),
  };
}

/** The trajectory, format and failure columns of one system's lines. */
export function agentSummary(lines: readonly QuestionResult[]): AgentSummary {
  let searches = 0;
  let redundant = 0;
  let formatErrors = 0;
  const failures = new Map<FailureLabel, number>(FAILURE_LABELS.map((l) => [l, 0]));
  const steps: number[] = [];
  for (const line of lines) {
    // `?? 0`: a line resumed from a run written before these fields existed lacks them.
    searches += line.trajectory.scored_searches ?? 0;
    redundant += line.trajectory.redundant_searches ?? 0;
    formatErrors += line.format_errors ?? 0;
    if (typeof line.trajectory.steps_to_evidence === "number") {
      steps.push(line.trajectory.steps_to_evidence);
    }
    if (line.failure_label) {
      failures.set(line.failure_label, (failures.get(line.failure_label) ?? 0) + 1);
    }
  }
  const counts = Object.fromEntries(
    FAILURE_LABELS.map((label) => [`failures_${label}`, failures.get(label) ?? 0]),
  ) as { [K in FailureColumn]: number };
  return {
    avg_steps_to_evidence: mean(steps),
    redundant_search_rate: searches === 0 ? null : redundant / searches,
    format_errors: formatErrors,
    ...counts,
  };
}
