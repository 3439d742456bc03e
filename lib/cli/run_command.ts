/**
 * `ragbench run CONFIG`: runs every system on every question, writes the run
 * directory, prints the summary table. Exit codes: 0 success; 1 the run
 * finished but something failed (a system errored on every question, or the
 * run's cost cap stopped it) or its files could not be written; 130
 * cancelled with Ctrl-C. The run directory is locked for the whole run
 * (`lib/run/run_lock.ts`), checked before anything is written
 * (`lib/run/run_dir.ts`) and gets a `run.json` manifest that `--resume`
 * compares (`run_manifest.ts`).
 *
 * The order of the phases below is what protects results: check everything
 * and write nothing (`run_prepare.ts`); start the models and tools
 * (`run_start.ts`); create and lock the folder, check it again under the
 * lock (`run_record.ts`); record `run.json` (on `--resume`, after comparing
 * it with the earlier run's); ask the questions, appending each result
 * (`run_execute.ts`); rewrite the results and write the summaries
 * (`run_finish.ts`); release the lock. Every resource is on one stack
 * (`run_stack.ts`) that the end of the run, an error and a hard quit all
 * unwind.
 *
 * @module
 */

import { RUN_FILES } from "../run/run_dir.ts";
import { estimateLines } from "../run/estimate.ts";
import { join } from "../util/paths.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import { CACHE_OPTIONS } from "./cache_options.ts";
import type { CliIO } from "./io.ts";
import { executeRun } from "./run_execute.ts";
import { finishRun, reportOutcome } from "./run_finish.ts";
import { prepareRun } from "./run_prepare.ts";
import { claimRunDir, recordRun } from "./run_record.ts";
import { readRunRequest, runIO } from "./run_request.ts";
import { RunStack } from "./run_stack.ts";
import { startRun } from "./run_start.ts";
import { SHARD_OPTION } from "./run_shard.ts";

/** Declaration of `ragbench run`. */
export const RUN_SPEC: CommandSpec = {
  name: "run",
  summary: "Run every system of CONFIG on every question; write results to a run directory.",
  positionals: [{ name: "CONFIG" }],
  options: [
    {
      name: "mock",
      description: "Use the scripted mock model: offline, no API key, deterministic.",
    },
    {
      name: "out",
      value: "DIR",
      description: "Write the run here (default runs/<name>-<UTC time>).",
    },
    {
      name: "resume",
      value: "DIR",
      description: "Continue the run in DIR: run only what it lacks.",
    },
    {
      name: "concurrency",
      value: "N",
      description: "Questions run at once (default evaluation.concurrency).",
    },
    { name: "systems", value: "A,B", description: "Run only these systems (by name)." },
    { name: "limit", value: "N", description: "Run only the first N questions." },
    SHARD_OPTION,
    {
      name: "force",
      description: "Go on regardless: with --resume, even when run.json differs from this " +
        "config; and even when the cost estimate is over evaluation.max_cost_usd.",
    },
    {
      name: "quiet",
      description:
        "Print only errors: no progress, no estimate, no table (the run directory has it all).",
    },
    {
      name: "verbose",
      description: "Print a progress line per finished question instead of one live line.",
    },
    {
      name: "junit",
      value: "FILE",
      description: "Also write JUnit XML (one test case per system × question) to FILE.",
    },
    ...CACHE_OPTIONS,
    {
      name: "dry-run",
      description: "Print the plan and its cost estimate, run nothing (needs only read access).",
    },
  ],
  notes: "Exit status: 0 success; 1 the run finished but a system errored on every question,\n" +
    "the run's cost cap stopped it, or its files could not be written, or (without --force)\n" +
    "its cost estimate is over evaluation.max_cost_usd; 2 usage or config error\n" +
    "(also a run directory in use or a --resume that differs from the earlier run);\n" +
    "130 cancelled (Ctrl-C); 143 SIGTERM, 129 SIGHUP (quit at once, like a second Ctrl-C).",
};

/** Runs the command; returns the exit code. */
export async function runCommand(args: ParsedArgs, cliIO: CliIO): Promise<number> {
  const request = readRunRequest(args, cliIO);
  // --quiet prints only errors; io.alert carries what explains a run that failed or stopped.
  const io = runIO(cliIO, request.progress);
  await using stack = new RunStack(io);
  const run = await prepareRun(request, args, { io, stack });
  if (request.dryRun) {
    io.out(estimateLines(run.estimate, { simulated: request.mock }).join("\n"));
    for (const warning of run.priceLines) io.progress(`warning: ${warning}`);
    return 0;
  }
  const started = await startRun(run, { io, stack });
  if (started === "cancelled") {
    io.alert("cancelled while the tools were starting: nothing was run.");
    return 130;
  }
  const { resumeHint } = run;
  const resultsPath = join(run.dir, RUN_FILES.results);
  const { tools } = await claimRunDir(run, started, { stack, resumeHint });
  const recorded = await recordRun(run, started, io);
  const outcome = await executeRun(run, started, {
    io,
    stack,
    resultsPath,
    resumeHint,
    tools,
    done: recorded.done,
  });
  const finished = await finishRun(run, started, { recorded, resultsPath, resumeHint });
  return reportOutcome(run, started, { io, finished, outcome, resumeHint });
}
