/**
 * `ragbench report RUN_DIR`: re-renders a run's summaries, recommendation
 * and HTML report from its `per_question_results.jsonl` alone (streamed),
 * so a run interrupted before its end, resumed, or made by an older
 * ragbench gets the current report. Writes `metrics_summary.csv`,
 * `tool_usage.csv`, `recommendation.json`, `summary.md` and `report.html`
 * into RUN_DIR, and JUnit XML with `--junit FILE`.
 *
 * @module
 */

import { summaryTable } from "../report/console_table.ts";
import { summarize, writeSummaries } from "../report/outputs.ts";
import { readRun } from "../report/read_run.ts";
import { writeRunReport } from "../report/run_report.ts";
import { costNotes } from "../report/cost_notes.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";

/** Declaration of `ragbench report`. */
export const REPORT_SPEC: CommandSpec = {
  name: "report",
  summary: "Re-render a run's summaries, recommendation and report.html from its results file.",
  positionals: [{ name: "RUN_DIR" }],
  options: [
    {
      name: "junit",
      value: "FILE",
      description: "Also write JUnit XML (one test case per system × question) to FILE.",
    },
  ],
};

/** Runs the command; returns the exit code. */
export async function reportCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const dir = args.positionals[0];
  const run = await readRun(dir);
  if (run.duplicates) {
    io.progress(
      `note: ${run.duplicates} lines repeat an earlier line's system, question and repeat; the later ones are used`,
    );
  }
  const summaries = summarize(
    run.systems.map((s) => ({
      name: s.name,
      type: s.type,
      model: s.model,
      tools: run.tools.get(s.name) ?? [],
      networkTools: s.networkTools,
    })),
    run.lines,
  );
  await writeSummaries(dir, summaries);
  const report = await writeRunReport({
    name: run.name,
    dir,
    systems: run.systems,
    lines: run.lines,
    embedded: run.embedded,
    summaries,
    indexing: run.indexing,
    ...(args.options.has("junit") ? { junitPath: args.options.get("junit")! } : {}),
  });
  io.out(
    summaryTable(summaries.systems, {
      stats: report.stats,
      models: new Map(run.systems.map((s) => [s.name, s.model])),
    }),
  );
  const notes = costNotes(summaries.systems);
  if (notes.length) io.out(notes.join("\n"));
  if (report.recommendation.lines.length) io.out(["", ...report.recommendation.lines].join("\n"));
  io.progress(`report: ${dir}/report.html (${run.lines.length} result lines)`);
  return 0;
}
