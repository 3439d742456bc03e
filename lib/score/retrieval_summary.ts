/**
 * The retrieval columns of `metrics_summary.csv`: for each system, the mean
 * over its result lines whose question has evidence of each per-question
 * metric (`map`, `recall@k`, `precision@k`, `mrr@k`, `ndcg@k`,
 * `hit_rate@k`). A line that retrieved nothing counts 0, as trec_eval `-c`
 * counts a query with no results. The cells are empty (null) for a system
 * that does not retrieve at all: one that offers no retrieval tool and none
 * of whose lines holds a retrieval step or retrieval-tool call — a closed-book
 * baseline, whose zeros would only say it was not asked to search.
 *
 * @module
 */

import type { QuestionResult } from "../types.ts";
import { metricKeys } from "./ir_metrics.ts";
import { RETRIEVAL_TOOLS } from "./retrieval.ts";
import { mean } from "./stats.ts";

/** The retrieval column names for these cut-offs, in order. */
export function retrievalColumns(cutoffs: readonly number[]): string[] {
  return metricKeys(cutoffs);
}

/** Whether a system retrieves: it offers a retrieval tool, or one of its lines retrieved. */
export function systemRetrieves(
  tools: readonly string[],
  lines: readonly QuestionResult[],
): boolean {
  return tools.some((t) => RETRIEVAL_TOOLS.has(t)) || lines.some((l) => l.retrieval.retrieved);
}

/** Mean of each retrieval metric over the lines with evidence; all null when `retrieves` is false. */
export function retrievalSummary(
  lines: readonly QuestionResult[],
  cutoffs: readonly number[],
  retrieves: boolean,
): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const judged = lines.map((l) => l.retrieval.metrics).filter((m) => m != null);
  for (const key of retrievalColumns(cutoffs)) {
    out[key] = retrieves ? mean(judged.map((m) => m[key] ?? 0)) : null;
  }
  return out;
}
