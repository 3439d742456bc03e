/**
 * The reader-facing outputs of a finished run, computed from its result
 * lines: the statistics and recommendation, then `recommendation.json`,
 * `summary.md` and `report.html` in the run directory (each written to a
 * temporary file and renamed into place), and optionally a JUnit file. Both
 * `ragbench run` (at the end of a run) and `ragbench report RUN_DIR` (from a
 * run's JSONL alone) call it, so the two produce the same files.
 *
 * @module
 */

import type { IndexingRecord } from "../retrieval/registry.ts";
import { join } from "../util/paths.ts";
import type { SystemSummary, ToolUsage } from "../score/summary.ts";
import { ANSWER_SCORE, metricValue, type RunStats, runStats } from "../score/comparison.ts";
import { retrievalHeadline } from "./retrieval_headline.ts";
import type { QuestionResult } from "../types.ts";
import { writeChunksAtomic, writeFileAtomic } from "../util/fs.ts";
import type { EmbeddedSource } from "./html/question_data.ts";
import { reportChunks } from "./html/report.ts";
import { junitXml } from "./junit.ts";
import { recommend, type Recommendation } from "./recommendation.ts";
import { summaryMarkdown } from "./summary_md.ts";
import { costNotes } from "./cost_notes.ts";

/** Files the report writes into a run directory. */
export const REPORT_FILES = {
  recommendation: "recommendation.json",
  markdown: "summary.md",
  html: "report.html",
} as const;

/** A system as the report needs it. */
export interface ReportSystem {
  name: string;
  type: string;
  /** Model id; null when unknown or the system calls no model. */
  model: string | null;
  /** Offered tools with network side effects. */
  networkTools: readonly string[];
}

/** What the report is computed from. */
export interface RunReportInput {
  name: string;
  dir: string;
  systems: readonly ReportSystem[];
  lines: readonly QuestionResult[];
  summaries: { systems: readonly SystemSummary[]; tools: readonly ToolUsage[] };
  /** The report's per-question data when built already (see `read_run.ts`). */
  embedded?: EmbeddedSource;
  /** Also write JUnit XML here. */
  junitPath?: string;
  /** What embedding the passages cost, every session of the run (run.json). */
  indexing?: readonly IndexingRecord[];
  /** The run's `evaluation.retrieval_k` (default `DEFAULT_RETRIEVAL_K` of lib/score/retrieval.ts). */
  retrievalK?: readonly number[];
  /** Warnings about the run as a whole (a partial merge), shown above the cost notes. */
  notes?: readonly string[];
}

/** The statistics and recommendation the files were written from. */
export interface RunReport {
  stats: RunStats;
  recommendation: Recommendation;
}

/** Computes the statistics and recommendation (no file is written). */
export function analyseRun(input: RunReportInput): RunReport {
  const names = input.systems.map((s) => s.name);
  const headline = retrievalHeadline(input.retrievalK);
  // Answers are ranked by their score; a run with no answer at all by its retrieval headline.
  const metric = !input.lines.some((l) => l.answer_score !== null) &&
      input.lines.some((l) => metricValue(l, headline.rank) !== null)
    ? headline.rank
    : ANSWER_SCORE;
  const stats = runStats(names, input.lines, { metric });
  const budget = new Map<string, number>();
  const firstError = new Map<string, string>();
  for (const line of input.lines) {
    if (line.flags.budget_exhausted) budget.set(line.system, (budget.get(line.system) ?? 0) + 1);
    if (line.error && !firstError.has(line.system)) firstError.set(line.system, line.error.message);
  }
  const figures = systemFigures(input);
  const recommendation = recommend(
    input.systems.map((s) => {
      const { summary, ...f } = figures(s);
      return {
        ...f,
        best_effort_rate: summary?.best_effort_rate ?? null,
        budget_exhausted: budget.get(s.name) ?? 0,
        network_tools: s.networkTools,
        tool_cuts: input.summaries.tools.filter((t) => t.system === s.name),
        first_error: firstError.get(s.name) ?? null,
      };
    }),
    stats,
  );
  return { stats, recommendation };
}

/** The headline figures of each system, from its summary row (zeros and nulls without one). */
function systemFigures(input: RunReportInput) {
  const bySystem = new Map(input.summaries.systems.map((s) => [s.system, s]));
  const { columns } = retrievalHeadline(input.retrievalK);
  return (s: ReportSystem) => {
    const summary = bySystem.get(s.name);
    const retrieval = Object.fromEntries(
      columns.map((k) => [k, (summary?.[k as `${string}@${number}`] as number | null) ?? null]),
    );
    return {
      system: s.name,
      model: s.model,
      questions: summary?.questions ?? 0,
      errors: summary?.errors ?? 0,
      cost_per_question: summary?.cost_per_question ?? null,
      p50_latency_ms: summary?.p50_latency_ms ?? null,
      retrieval_depth: summary?.retrieval_depth ?? null,
      ...(Object.values(retrieval).some((v) => v !== null) ? { retrieval } : {}),
      summary,
    };
  };
}

/**
 * Computes the report and writes its files.
 *
 * @throws {RagbenchError} (code "io") naming the file that could not be written.
 */
export async function writeRunReport(input: RunReportInput): Promise<RunReport> {
  const report = analyseRun(input);
  const { stats, recommendation } = report;
  const statsBySystem = new Map(stats.systems.map((s) => [s.system, s]));
  const figures = systemFigures(input);
  const notes = [...input.notes ?? [], ...costNotes(input.systems.map((s) => figures(s)))];
  await writeFileAtomic(
    join(input.dir, REPORT_FILES.recommendation),
    JSON.stringify(recommendation, null, 2) + "\n",
  );
  await writeFileAtomic(
    join(input.dir, REPORT_FILES.markdown),
    summaryMarkdown(
      { name: input.name, dir: input.dir },
      input.systems.map((s) => {
        const { summary, ...f } = figures(s);
        return {
          ...f,
          avg_tool_calls: summary?.avg_tool_calls ?? null,
          stats: statsBySystem.get(s.name)!,
        };
      }),
      recommendation,
      stats.pairs,
      input.indexing ?? [],
      notes,
    ),
  );
  await writeChunksAtomic(
    join(input.dir, REPORT_FILES.html),
    reportChunks({
      run: { name: input.name, dir: input.dir },
      systems: input.systems,
      summaries: input.summaries.systems as unknown as Record<string, unknown>[],
      toolUsage: input.summaries.tools as unknown as Record<string, unknown>[],
      lines: input.lines,
      stats,
      recommendation,
      ...(input.indexing ? { indexing: input.indexing } : {}),
      ...(input.embedded ? { embedded: input.embedded } : {}),
      ...(input.retrievalK ? { retrievalK: input.retrievalK } : {}),
      costNotes: notes,
    }),
  );
  if (input.junitPath !== undefined) {
    await writeFileAtomic(
      input.junitPath,
      junitXml(input.systems.map((s) => s.name), input.lines),
      // Through the run directory: the run may write FILE, not FILE's folder.
      { tmpDir: input.dir },
    );
  }
  return report;
}
