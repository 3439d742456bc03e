/**
 * The phases of `ragbench run` that take the run directory and record what
 * the run is: {@link claimRunDir} (create the folder, lock it, check it again
 * under the lock, since another run may have written meanwhile) and
 * {@link recordRun} (build `run.json` and, on `--resume`, compare it with the
 * earlier run's and take over its results; write `config.resolved.yaml` and
 * `run.json`; print the run's banner). Nothing is written before the lock is
 * held, and no question runs before `run.json` is written.
 *
 * @module
 */

import { describeSkipped } from "../data/corpus.ts";
import { RagbenchError } from "../errors.ts";
import { manifestPrices } from "../plan/price_checks.ts";
import { sourceOf } from "../plan/tool_sources/registry.ts";
import { resolvedConfigYaml } from "../report/resolved_config.ts";
import type { RunManifest } from "../run/manifest.ts";
import { estimateLines } from "../run/estimate.ts";
import { readPreviousResults } from "../run/previous_results.ts";
import { checkRunDir, RUN_FILES } from "../run/run_dir.ts";
import { acquireRunLock } from "../run/run_lock.ts";
import { describeFsError, writeFileAtomic } from "../util/fs.ts";
import { join } from "../util/paths.ts";
import { plural } from "../util/plural.ts";
import { VERSION } from "../version.ts";
import type { CliIO } from "./io.ts";
import { checkResume, currentManifest, writeManifest } from "./run_manifest.ts";
import type { PreparedRun } from "./run_prepare.ts";
import type { RunStack } from "./run_stack.ts";
import type { StartedRun } from "./run_start.ts";

/**
 * Creates and locks the run directory and checks it again under the lock;
 * then lifts the plan above the lock on `stack`, so that a run's tools are
 * stopped before its folder is released.
 *
 * @throws {RagbenchError} when the folder cannot be made, another run holds
 *   it, or it changed since the first check.
 */
export async function claimRunDir(
  run: PreparedRun,
  started: StartedRun,
  ctx: { stack: RunStack; resumeHint: string },
): Promise<{ tools: AsyncDisposableStack }> {
  await createRunDir(run.dir);
  const lock = await acquireRunLock(run.dir, { resume: ctx.resumeHint });
  // A hard quit (SIGTERM, a second Ctrl-C) must not leave a lock that looks stale.
  ctx.stack.defer(() => lock.release());
  const tools = ctx.stack.lift(started.tools);
  // Checked again under the lock: another run may have written here since.
  await checkRunDir(run.dir, {
    resume: run.request.resume !== undefined,
    resumeCommand: ctx.resumeHint,
  });
  return { tools };
}

/** What the run recorded before its first question. */
export interface RecordedRun {
  manifest: RunManifest;
  /** Keys (`jobKey`) of the jobs the earlier run finished (`--resume`); their lines stay in the file. */
  done: Set<string>;
}

/**
 * Builds `run.json` (on `--resume`, checks it against the earlier run's and
 * reads that run's results), writes `config.resolved.yaml` and `run.json`,
 * and prints the banner.
 *
 * @throws {UsageError} when a resumed run differs from the earlier one (without `--force`).
 * @throws {RagbenchError} when a file cannot be read or written.
 */
export async function recordRun(
  run: PreparedRun,
  started: StartedRun,
  io: CliIO,
): Promise<RecordedRun> {
  const { request, config, loaded, dir } = run;
  const { plan, runModel } = started;
  const mock = request.mock;
  let manifest = await currentManifest({
    version: VERSION,
    config,
    mock,
    modelId: runModel.id,
    pricing: runModel.pricing,
    prices: manifestPrices(config, run.prices, { mock }),
    limit: request.selection.limit ?? null,
    questions: loaded.questions.length,
    systems: plan.systems,
    summary: plan.summary,
    startedAt: started.startedAt,
    indexing: await plan.retrievers.indexing(),
    ...(started.shard ? { shard: started.shard.block } : {}),
    // Not io.signal: a first Ctrl-C here must stop the run like one during loading (exit 130
    // with the summaries written), not abort the hashing with an error.
  });
  let done = new Set<string>();
  if (request.resume !== undefined) {
    const check = await checkResume(dir, manifest, { force: request.force });
    manifest = check.manifest;
    for (const d of check.forced) io.progress(`--force: resuming despite: ${d}`);
    const resultsPath = join(dir, RUN_FILES.results);
    const earlier = readPreviousResults(resultsPath);
    done = earlier.done;
    if (earlier.duplicates) {
      io.progress(`resume: ${earlier.duplicates} repeated result lines dropped (first kept)`);
    }
  }
  await writeFileAtomic(
    join(dir, RUN_FILES.config),
    resolvedConfigYaml(config, {
      version: VERSION,
      mock,
      modelId: runModel.id,
      pricing: runModel.pricing,
      models: started.models,
      concurrency: started.concurrency,
      tools: new Map(plan.summary.map((s) => [s.name, s.tools])),
      toolEntry: (ref) => sourceOf(ref).resolved(ref),
    }),
  );
  await writeManifest(dir, manifest);
  printBanner(run, started, io);
  return { manifest, done };
}

/** Printed once the folder, lock and resume checks have passed (their errors come first). */
function printBanner(run: PreparedRun, started: StartedRun, io: CliIO): void {
  const { request, config, loaded } = run;
  const { plan } = started;
  for (const line of estimateLines(run.estimate, { simulated: request.mock })) io.progress(line);
  io.progress(
    `ragbench ${VERSION}: ${plural(plan.systems.length, "system")} × ${
      plural(loaded.questions.length, "question")
    } × ${plural(config.evaluation.repeats, "repeat")}, ${
      modelsLine(plan.summary)
    }, writing ${run.dir}`,
  );
  if (started.shard) io.progress(started.shard.line);
  for (const line of describeSkipped(loaded.skipped)) io.progress(line);
  for (const warning of loaded.warnings) io.progress(`warning: ${warning}`);
  for (const warning of run.priceLines) io.progress(`warning: ${warning}`);
  if (request.mock && config.evaluation.max_cost_usd !== null) {
    io.progress(
      "--mock: evaluation.max_cost_usd is not applied (the mock's dollars are simulated)",
    );
  }
}

/** `model X` when every system shares one model, else `models X, Y`; `no model` when none calls one. */
function modelsLine(systems: ReadonlyArray<{ model: string | null }>): string {
  const ids = [...new Set(systems.flatMap((s) => s.model === null ? [] : [s.model]))];
  if (ids.length === 0) return "no model";
  return `${ids.length === 1 ? "model" : "models"} ${ids.join(", ")}`;
}

async function createRunDir(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (error) {
    throw new RagbenchError(
      "io",
      `Cannot create run directory "${dir}": ${describeFsError(error)}.`,
      { cause: error },
    );
  }
}
