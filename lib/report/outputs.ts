/**
 * Writes the summary files of a run directory from its result lines:
 * `metrics_summary.csv` and `tool_usage.csv`, each through a temporary file
 * and a rename. Results are grouped by system in config order.
 *
 * @module
 */

import { join } from "../util/paths.ts";
import {
  summarizeSystem,
  summaryColumns,
  type SystemSummary,
  TOOL_USAGE_COLUMNS,
  type ToolUsage,
  toolUsage,
} from "../score/summary.ts";
import type { QuestionResult } from "../types.ts";
import { writeFileAtomic } from "../util/fs.ts";
import { toCsv } from "./csv.ts";
import { RUN_FILES } from "../run/run_dir.ts";

/** A system as the summaries need it. */
export interface SummarySystem {
  name: string;
  type: string;
  /** Id of the model it uses (`Model.id`); null when unknown (an older run's report). */
  model: string | null;
  /** Names of the tools it offers, in offered order. */
  tools: readonly string[];
  /** Offered tools with network side effects. */
  networkTools: readonly string[];
}

/** The computed summaries, also returned for the console table. */
export interface Summaries {
  /** Cut-offs of the retrieval columns (default [1, 5, 10]). */
  retrievalK?: readonly number[];
  systems: SystemSummary[];
  tools: ToolUsage[];
}

/** Computes both summaries; `retrievalK` gives the retrieval cut-offs (default [1, 5, 10]). */
export function summarize(
  systems: readonly SummarySystem[],
  results: readonly QuestionResult[],
  options: { retrievalK?: readonly number[] } = {},
): Summaries {
  const bySystem = new Map<string, QuestionResult[]>(systems.map((s) => [s.name, []]));
  for (const r of results) bySystem.get(r.system)?.push(r);
  return {
    retrievalK: options.retrievalK,
    systems: systems.map((s) => summarizeSystem(s, bySystem.get(s.name)!, options)),
    tools: systems.flatMap((s) => toolUsage(s.name, s.tools, bySystem.get(s.name)!)),
  };
}

/** Writes `metrics_summary.csv` and `tool_usage.csv` into `dir`. */
export async function writeSummaries(dir: string, summaries: Summaries): Promise<void> {
  await writeFileAtomic(
    join(dir, RUN_FILES.summary),
    toCsv(summaryColumns(summaries.retrievalK), summaries.systems),
  );
  await writeFileAtomic(join(dir, RUN_FILES.toolUsage), toCsv(TOOL_USAGE_COLUMNS, summaries.tools));
}
