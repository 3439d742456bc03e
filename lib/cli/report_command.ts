/**
 * `ragbench report RUN_DIR`: re-renders a run's summaries, recommendation
 * and HTML report from its `per_question_results.jsonl` (streamed) and the
 * settings the run recorded in `run.json` (its retrieval cut-offs, systems,
 * models and tools; `lib/report/read_run.ts`), so a run interrupted before
 * its end, resumed, or made by an older ragbench gets the current report,
 * and a finished run's files come out as `run` wrote them. Writes `metrics_summary.csv`,
 * `tool_usage.csv`, `recommendation.json`, `summary.md` and `report.html`
 * into RUN_DIR, and JUnit XML with `--junit FILE`.
 *
 * @module
 */

import { printResults } from "./print_results.ts";
import { writeSummaries } from "../report/outputs.ts";
import { readRun, summarizeRun } from "../report/read_run.ts";
import { writeRunReport } from "../report/run_report.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import { plural } from "../util/plural.ts";

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
  // "runs/x/" (as a shell completes it) is the run "runs/x": the reports name it as run did.
  const dir = args.positionals[0].replace(/(?<=.)\/+$/, "");
  // Held: a second parse of the file for the page would cost more than the data's memory.
  const run = await readRun(dir, { embed: "held" });
  for (const note of run.notes) io.progress(`note: ${note}`);
  if (run.duplicates) {
    io.progress(
      `note: ${
        run.duplicates === 1 ? "1 line repeats" : `${run.duplicates} lines repeat`
      } an earlier line's system, question and repeat; the later ones are used`,
    );
  }
  const summaries = summarizeRun(run);
  await writeSummaries(dir, summaries);
  const report = await writeRunReport({
    name: run.name,
    dir,
    systems: run.systems,
    lines: run.lines,
    embedded: run.embedded,
    summaries,
    indexing: run.indexing,
    ...(run.retrievalK ? { retrievalK: run.retrievalK } : {}),
    ...(run.warnings.length ? { notes: run.warnings } : {}),
    ...(args.options.has("junit") ? { junitPath: args.options.get("junit")! } : {}),
  });
  printResults(io, summaries.systems, report, {
    models: new Map(run.systems.map((s) => [s.name, s.model])),
    ...(run.retrievalK ? { retrievalK: run.retrievalK } : {}),
  });
  io.progress(`report: ${dir}/report.html (${plural(run.lines.length, "result line")})`);
  return 0;
}
