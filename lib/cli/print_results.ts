/**
 * What `ragbench run` and `ragbench report` print at the end, the same for
 * both: first a line per system whose every question errored (with its
 * first error's message), then the summary table, the notes on its dollar
 * figures (simulated, or of unknown price), then the recommendation.
 *
 * @module
 */

import { summaryTable } from "../report/console_table.ts";
import { costNotes } from "../report/cost_notes.ts";
import type { RunReport } from "../report/run_report.ts";
import type { SystemSummary } from "../score/summary.ts";
import type { CliIO } from "./io.ts";

/** Prints the end of a run to stdout. */
export function printResults(
  io: CliIO,
  systems: readonly SystemSummary[],
  report: RunReport,
  options: { models: ReadonlyMap<string, string | null>; retrievalK?: readonly number[] },
): void {
  const failed = report.recommendation.failed.map((f) => `failed: ${f}`);
  io.out(
    [
      ...(failed.length ? [...failed, ""] : []),
      summaryTable(systems, {
        stats: report.stats,
        models: options.models,
        ...(options.retrievalK ? { retrievalK: options.retrievalK } : {}),
      }),
    ].join("\n"),
  );
  const notes = costNotes(systems);
  if (notes.length) io.out(notes.join("\n"));
  // The failed systems were named above the table: the recommendation need not repeat them.
  const lines = report.recommendation.lines.slice(report.recommendation.failed.length);
  if (lines.length) io.out(["", ...lines].join("\n"));
}
