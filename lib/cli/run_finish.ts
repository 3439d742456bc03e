/**
 * The last phases of `ragbench run`: {@link finishRun} rewrites the results
 * file in a fixed order, reads it back, and writes the summaries, the TREC run files, the
 * report and the finished `run.json` (all under the lock, the tools already
 * stopped); {@link reportOutcome} prints the table, the recommendation and
 * what went wrong, and decides the exit code.
 *
 * @module
 */

import { StreamedEmbedder } from "../report/html/streamed_data.ts";
import { readResultLines } from "../report/read_run.ts";
import { retrievalHeadline } from "../report/retrieval_headline.ts";
import { rewriteSorted } from "../report/sorted_rewrite.ts";
import { type Summaries, summarize, writeSummaries } from "../report/outputs.ts";
import { REPORT_FILES, type RunReport, writeRunReport } from "../report/run_report.ts";
import { TREC_FOLDER, writeTrecFiles } from "../report/trec_run.ts";
import { finishManifest, MANIFEST_FILE } from "../run/manifest.ts";
import { RUN_FILES } from "../run/run_dir.ts";
import type { RunOutcome } from "../run/runner.ts";
import type { QuestionResult } from "../types.ts";
import { plural } from "../util/plural.ts";
import { shownPath } from "./invocation.ts";
import { mockPolicyNote } from "./mock_note.ts";
import { printResults } from "./print_results.ts";
import { writeFailure } from "./resume_hint.ts";
import { replayMisses } from "./run_cache.ts";
import { writeManifest } from "./run_manifest.ts";
import type { PreparedRun } from "./run_prepare.ts";
import type { RecordedRun } from "./run_record.ts";
import type { RunIO } from "./run_request.ts";
import type { StartedRun } from "./run_start.ts";
import { callsModel } from "../../systems/registry.ts";

/** What the run wrote at its end. */
export interface FinishedRun {
  summaries: Summaries;
  report: RunReport;
  /**
   * Results of systems and questions of this run (a resumed file may hold others), read back
   * from the sorted file, each a compact copy (`compactLine`).
   */
  known: QuestionResult[];
  /** Lines left out of the TREC run files. */
  trecSkipped: number;
}

/**
 * Rewrites the results file sorted (earlier results first when resumed), reads
 * it back through the reader `ragbench report` uses, and writes every summary
 * file and the finished `run.json`. The run holds no result of its own: what
 * the summaries read comes from the file, so `run` and `report` write the same
 * files.
 *
 * @throws {RagbenchError} ("io") when a file cannot be read or written, with
 *   what was kept and the resume command.
 */
export async function finishRun(
  run: PreparedRun,
  started: StartedRun,
  ctx: { recorded: RecordedRun; resultsPath: string; resumeHint: string },
): Promise<FinishedRun> {
  const { config, dir } = run;
  const { plan } = started;
  const retrievalK = config.evaluation.retrieval_k;
  const order = {
    systems: plan.summary.map((s) => s.name),
    questions: run.loaded.questions.map((q) => q.id),
  };
  try {
    await rewriteSorted(ctx.resultsPath, order);
    // The report's per-question data: where each line is now, the data itself when the page
    // is written (a second pass over the file).
    const embedded = new StreamedEmbedder(ctx.resultsPath, order.systems, {
      ndcg: retrievalHeadline(retrievalK).rank,
    });
    const systems = new Set(order.systems);
    const questions = new Set(order.questions);
    const { lines: known } = readResultLines(ctx.resultsPath, {
      embedded,
      // Lines of systems or questions this run does not have (a resumed file may hold them)
      // stay in the file and out of the summaries.
      keep: (line) => systems.has(line.system) && questions.has(line.question_id),
      ranking: true,
    });
    const summaries = summarize(plan.summary, known, { retrievalK });
    await writeSummaries(dir, summaries);
    const trec = await writeTrecFiles(dir, plan.summary, known, run.loaded.questions);
    const report = await writeRunReport({
      name: config.name,
      dir,
      systems: plan.summary.map((s) => ({
        name: s.name,
        type: s.type,
        model: s.model,
        networkTools: s.networkTools,
      })),
      lines: known,
      embedded,
      summaries,
      indexing: ctx.recorded.manifest.sessions.flatMap((s) => s.indexing ?? []),
      retrievalK,
      ...(run.request.junit === undefined ? {} : { junitPath: run.request.junit }),
    });
    await writeManifest(dir, finishManifest(ctx.recorded.manifest, new Date().toISOString()));
    return { summaries, report, known, trecSkipped: trec.skipped };
  } catch (error) {
    throw writeFailure(error, { results: ctx.resultsPath, resume: ctx.resumeHint });
  }
}

/** Prints what the run found and what went wrong; returns the exit code. */
export function reportOutcome(
  run: PreparedRun,
  started: StartedRun,
  ctx: { io: RunIO; finished: FinishedRun; outcome: RunOutcome; resumeHint: string },
): number {
  const { io, finished, outcome } = ctx;
  const { config, dir } = run;
  if (finished.trecSkipped > 0) {
    io.progress(
      `warning: ${
        plural(finished.trecSkipped, "line")
      } left out of the TREC files in ${TREC_FOLDER}/: their question or document id holds whitespace, or their line has no scores`,
    );
  }
  // --quiet: of the table and recommendation, only the systems that failed (an error each).
  if (run.request.progress === "quiet") {
    for (const f of finished.report.recommendation.failed) io.alertOut(`failed: ${f}`);
  }
  printResults(io, finished.summaries.systems, finished.report, {
    models: new Map(started.plan.summary.map((s) => [s.name, s.model])),
    retrievalK: config.evaluation.retrieval_k,
  });
  const policyNote = mockPolicyNote(
    run.request.mock,
    config.mock_script,
    config.systems.some(callsModel),
  );
  if (policyNote !== null) io.out(`\n${policyNote}`);
  io.progress(
    `results: ${shownPath(dir, Deno.cwd())}/ (${
      [
        ...Object.values(RUN_FILES),
        MANIFEST_FILE,
        ...Object.values(REPORT_FILES),
        `${TREC_FOLDER}/`,
      ]
        .join(", ")
    })`,
  );
  const unkept = outcome.interrupted === 0 ? "" : ` (${interruptedNote(outcome.interrupted)})`;
  if (outcome.stoppedBy === "cancelled") {
    io.alert(
      `cancelled: ${
        plural(outcome.notRun, "question")
      } not run${unkept}; the summaries cover what finished. Finish with:\n  ${ctx.resumeHint}`,
    );
    return 130;
  }
  const cacheLine = started.runCache.summaryLine();
  if (cacheLine !== null) io.progress(cacheLine);
  let code = replayMisses(finished.known, io.alert);
  if (outcome.stoppedBy === "max_cost_usd") {
    io.alert(
      `stopped: evaluation.max_cost_usd (${config.evaluation.max_cost_usd}${
        run.request.shard ? `; this shard's share: 1/${run.request.shard.count} of it` : ""
      }) reached; ${plural(outcome.notRun, "question")} not run`,
    );
    code = 1;
  }
  for (const s of finished.summaries.systems) {
    if (s.questions > 0 && s.errors === s.questions) {
      io.alert(
        `failed: every question of ${s.system} errored; see "error" in ${RUN_FILES.results}`,
      );
      code = 1;
    } else if (s.errors > 0) {
      io.alert(`warning: ${s.errors} of ${plural(s.questions, "question")} of ${s.system} errored`);
    }
  }
  return code;
}

/** Why `count` questions that ran were not kept. */
function interruptedNote(count: number): string {
  return `${
    count === 1 ? "it was" : `${count} of them were`
  } not kept: a tool process stopped while ${count === 1 ? "it" : "they"} ran`;
}
