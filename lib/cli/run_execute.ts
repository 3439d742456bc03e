/**
 * The phase of `ragbench run` that asks the questions: opens the results
 * file, runs every system on every question not done yet, appends each
 * result as it finishes, and shows progress. Its end closes the results file
 * and then the tools (their processes are not needed for the summaries).
 *
 * A hard quit while it runs unwinds the run's stack (`run_stack.ts`): no
 * result is written after that, the line being written is flushed, and the
 * resume command is printed, before the tools stop and the lock is released.
 *
 * @module
 */

import { openJsonlWriter } from "../report/jsonl.ts";
import { type RunOutcome, runQuestions } from "../run/runner.ts";
import { createProgress } from "./progress.ts";
import { writeFailure } from "./resume_hint.ts";
import type { PreparedRun } from "./run_prepare.ts";
import type { RunIO } from "./run_request.ts";
import type { RunStack } from "./run_stack.ts";
import type { StartedRun } from "./run_start.ts";

/** Where the phase writes and how a user resumes it. */
export interface ExecuteContext {
  io: RunIO;
  stack: RunStack;
  /** The results file. */
  resultsPath: string;
  resumeHint: string;
  /** The phase of the stack holding the tools (lifted above the lock). */
  tools: AsyncDisposableStack;
  /** Keys (`jobKey`) of the jobs an earlier run kept (`--resume`): they are not run again. */
  done: ReadonlySet<string>;
}

/**
 * Runs the questions. Resolves once they have all run, or the run was
 * cancelled or reached its cost cap; the results file and the tools are
 * closed by then.
 *
 * @throws {RagbenchError} ("io") when a result cannot be written, with what
 *   was kept and the resume command.
 */
export async function executeRun(
  run: PreparedRun,
  started: StartedRun,
  ctx: ExecuteContext,
): Promise<RunOutcome> {
  const { io, stack } = ctx;
  const { config, request } = run;
  try {
    await using writing = stack.phase();
    const writer = writing.adopt(await openJsonlWriter(ctx.resultsPath), (w) => w.close());
    const progress = createProgress(request.progress, {
      ndcgK: Math.max(...config.evaluation.retrieval_k),
      simulated: request.mock,
      line: (text) => io.progress(text),
      ...(io.redraw ? { redraw: io.redraw } : {}),
      now: () => performance.now(),
      concurrency: started.concurrency,
    });
    writing.defer(async () => {
      progress.finish();
      if (!stack.quitting) return;
      await writer.flush();
      io.alert(
        `Stopped at once: the finished results are kept in ${ctx.resultsPath}; the summaries are written when the run is resumed. Continue with:\n  ${ctx.resumeHint}`,
      );
    });
    try {
      return await runQuestions({
        systems: started.plan.systems,
        questions: run.loaded.questions,
        repeats: config.evaluation.repeats,
        concurrency: started.concurrency,
        questionTimeoutMs: config.evaluation.question_timeout_s * 1000,
        // A --mock run spends nothing: its simulated dollars never stop it.
        // A shard spends its share of the run's cap: n shards together stay under it.
        maxCostUsd: request.mock || config.evaluation.max_cost_usd === null
          ? null
          : config.evaluation.max_cost_usd / (request.shard?.count ?? 1),
        ...(started.shard ? { include: started.shard.include } : {}),
        retrievalK: config.evaluation.retrieval_k,
        done: ctx.done,
        // Once quitting, nothing more is written: the line in progress was flushed.
        // Once written, a result is not kept: the finish phase reads the file back.
        sink: (result) => stack.quitting ? new Promise<void>(() => {}) : writer.append(result),
        reporter: progress,
        signal: io.signal,
      });
    } catch (error) {
      throw writeFailure(error, { results: ctx.resultsPath, resume: ctx.resumeHint });
    }
  } finally {
    // Tool processes are not needed for the summaries.
    await ctx.tools.disposeAsync();
  }
}
