/**
 * The first phase of `ragbench run`, which writes nothing: loads and checks
 * the config, checks that Deno granted what the run needs (what
 * `ragbench permissions` prints for the same options: `run_needs.ts`), makes
 * the command that resumes the run, checks the run directory (read-only: `--out` new or empty, `--resume` an earlier run),
 * loads the data, looks up the prices and makes the cost estimate. Every
 * problem a user can fix before the run starts is reported here.
 *
 * @module
 */

import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/types.ts";
import type { Corpus } from "../types.ts";
import { RagbenchError } from "../errors.ts";
import type { RunPrices } from "../llm/pricing.ts";
import type { CacheUse } from "../plan/cache_needs.ts";
import type { Need } from "../plan/need.ts";
import { missingNeeds, permissionFlags } from "../plan/permissions.ts";
import { offersBuiltins } from "../plan/plan.ts";
import { priceRun, priceWarnings, type Unpriced, unpricedOf } from "../plan/price_checks.ts";
import { loadData, type LoadedRun, REGISTRIES } from "../plan/setup.ts";
import { estimateRun, type RunEstimate } from "../run/estimate.ts";
import { checkRunDir } from "../run/run_dir.ts";
import { type StartedWorker, startWorker } from "../../tools/sandbox/early_worker.ts";
import type { ParsedArgs } from "./args.ts";
import { cacheUseFromArgs } from "./cache_options.ts";
import { systemRetrievers } from "../plan/embedding_needs.ts";
import { commandLine, DEFAULT_INVOCATION } from "./invocation.ts";
import type { CliIO } from "./io.ts";
import { estimateSystems } from "./preflight.ts";
import {
  needOptionWords,
  permissionsArgsNeeds,
  runArgsNeeds,
  selectedConfig,
} from "./run_needs.ts";
import { resumeHintOf, runDirOf, type RunRequest } from "./run_request.ts";
import type { RunStack } from "./run_stack.ts";

/** What the checks and loads found: everything the run starts from. */
export interface PreparedRun {
  request: RunRequest;
  config: Config;
  /** The run directory. */
  dir: string;
  /** The command that resumes the run in `dir` (printed when it fails or stops). */
  resumeHint: string;
  cache: CacheUse;
  loaded: LoadedRun;
  prices: RunPrices;
  /** Models and embedding models the run uses whose price is unknown (see price_checks.ts). */
  unpriced: Unpriced[];
  /** Warnings about prices, printed with the run's banner. */
  priceLines: string[];
  estimate: RunEstimate;
  /** The sandbox worker, started while the data loads (null when no system offers a built-in). */
  sandbox: StartedWorker | null;
  /** Characters of the corpus's document text (whether a collection after a build pays). */
  corpusChars: number;
}

/**
 * Checks and loads everything the run needs; the early sandbox worker goes
 * on `stack`.
 *
 * @throws {ConfigError}, {UsageError} or {RagbenchError} for what the user
 *   must fix: the config, a permission, the run directory, the data.
 */
export async function prepareRun(
  request: RunRequest,
  args: ParsedArgs,
  ctx: { io: CliIO; stack: RunStack },
): Promise<PreparedRun> {
  const { io, stack } = ctx;
  const config = await loadConfig(request.configPath, REGISTRIES);
  const dir = runDirOf(request, config.name);
  const cache = cacheUseFromArgs(args);
  const invocation = io.invocation ?? DEFAULT_INVOCATION;
  checkPermissions(
    runArgsNeeds(config, args),
    () =>
      commandLine(invocation, ["permissions", request.configPath, ...needOptionWords(args)], {
        needs: permissionsArgsNeeds(config, args),
      }),
  );
  const resumeHint = resumeHintOf(args, request, { dir, config, invocation });
  // Before the data loads: a wrong folder is refused at once, and before anything is written.
  if (!request.dryRun) {
    await checkRunDir(dir, { resume: request.resume !== undefined, resumeCommand: resumeHint });
  }
  // Only the selected systems': --systems a must not start the worker for system b's tools.
  const needed = selectedConfig(config, args);
  // The sandbox worker loads its modules while the data loads; the plan adopts it.
  const sandbox = stack.use(!request.dryRun && offersBuiltins(needed) ? startWorker() : null);
  const loaded = await loadData(config, request.selection, {
    progress: io.progress,
    signal: io.signal,
  });
  // Whether one collection after the index builds pays (run_start.ts).
  const chars = corpusChars(loaded.corpus);
  // After --systems: only the selected systems' prices are looked up and warned about.
  const prices = await priceRun(config, { mock: request.mock });
  const unpriced = unpricedOf(config, prices, { mock: request.mock });
  const estimate = estimateRun(estimateSystems(config, request.mock, prices), loaded.questions, {
    repeats: config.evaluation.repeats,
    maxOutputChars: config.tools.max_output_chars,
  });
  return {
    request,
    config,
    dir,
    resumeHint,
    // No saved indexes (nor the cache folder they need) when no selected system retrieves.
    cache: systemRetrievers(needed).length > 0 ? cache : { ...cache, indexMode: "off" },
    loaded,
    prices,
    unpriced,
    priceLines: priceWarnings(unpriced, prices.catalog),
    estimate,
    sandbox,
    corpusChars: chars,
  };
}

/**
 * Stops before anything runs when Deno did not grant what the run needs,
 * naming each missing flag and the command that prints them all.
 *
 * @throws {RagbenchError} (code "permission").
 */
function checkPermissions(needs: Need[], permissionsCommand: () => string): void {
  const missing = missingNeeds(needs);
  if (missing.length === 0) return;
  const lines = missing.map((n) => `  ${permissionFlags([n], Deno.cwd())[0]}  (${n.why})`);
  throw new RagbenchError(
    "permission",
    [
      "Cannot start the run: Deno did not grant these permissions:",
      ...lines,
      "Print every flag the run needs with:",
      `  ${permissionsCommand()}`,
    ].join("\n"),
  );
}

/** Characters of the corpus's document text. */
function corpusChars(corpus: Corpus): number {
  let chars = 0;
  for (const document of corpus.documents) chars += document.text.length;
  return chars;
}
