/**
 * The first phase of `ragbench run`, which writes nothing: loads and checks
 * the config, checks that Deno granted what the run needs, checks the run
 * directory (read-only: `--out` new or empty, `--resume` an earlier run),
 * loads the data, looks up the prices and makes the cost estimate. Every
 * problem a user can fix before the run starts is reported here.
 *
 * @module
 */

import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/types.ts";
import { RagbenchError } from "../errors.ts";
import type { RunPrices } from "../llm/pricing.ts";
import type { CacheUse } from "../plan/cache_needs.ts";
import { configEmbeddings } from "../plan/embedding_needs.ts";
import type { Need } from "../plan/need.ts";
import { missingNeeds, permissionFlags, runNeeds } from "../plan/permissions.ts";
import { offersBuiltins } from "../plan/plan.ts";
import { priceRun, priceWarnings, type Unpriced, unpricedOf } from "../plan/price_checks.ts";
import { loadData, type LoadedRun, REGISTRIES } from "../plan/setup.ts";
import { estimateRun, type RunEstimate } from "../run/estimate.ts";
import { checkRunDir } from "../run/run_dir.ts";
import { type StartedWorker, startWorker } from "../../tools/sandbox/early_worker.ts";
import type { ParsedArgs } from "./args.ts";
import { cacheUseFromArgs } from "./cache_options.ts";
import type { CliIO } from "./io.ts";
import { estimateSystems } from "./preflight.ts";
import { runDirOf, runDirRoot, type RunRequest } from "./run_request.ts";
import type { RunStack } from "./run_stack.ts";

/** What the checks and loads found: everything the run starts from. */
export interface PreparedRun {
  request: RunRequest;
  config: Config;
  /** The run directory. */
  dir: string;
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
  // Only the selected systems' needs: --systems a must not need system b's model host or key.
  const chosen = request.selection.systems;
  const needed = chosen
    ? { ...config, systems: config.systems.filter((s) => chosen.includes(s.name)) }
    : config;
  const needs = runNeeds(needed, {
    mock: request.mock,
    runDir: runDirRoot(request),
    ...(cache.dir === undefined ? {} : { cacheDir: cache.dir }),
    embeddings: configEmbeddings(needed),
    cache,
  });
  checkPermissions(request, request.dryRun ? needs.filter(isInputRead) : needs);
  // Before the data loads: a wrong folder is refused at once, and before anything is written.
  if (!request.dryRun) await checkRunDir(dir, { resume: request.resume !== undefined });
  // The sandbox worker loads its modules while the data loads; the plan adopts it.
  const sandbox = stack.use(!request.dryRun && offersBuiltins(needed) ? startWorker() : null);
  const loaded = await loadData(config, request.selection, {
    progress: io.progress,
    signal: io.signal,
  });
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
    cache,
    loaded,
    prices,
    unpriced,
    priceLines: priceWarnings(unpriced, prices.catalog),
    estimate,
    sandbox,
  };
}

/** A read of one of the run's inputs (all that --dry-run needs). */
function isInputRead(need: Need): boolean {
  return need.name === "read" &&
    ["the config", "the corpus", "the questions", "the mock script"].includes(need.why);
}

/**
 * Stops before anything runs when Deno did not grant what the run needs,
 * naming each missing flag.
 *
 * @throws {RagbenchError} (code "permission").
 */
function checkPermissions(request: RunRequest, needs: Need[]): void {
  const missing = missingNeeds(needs);
  if (missing.length === 0) return;
  const lines = missing.map((n) => `  ${permissionFlags([n], Deno.cwd())[0]}  (${n.why})`);
  throw new RagbenchError(
    "permission",
    [
      "Cannot start the run: Deno did not grant these permissions:",
      ...lines,
      `Run "ragbench permissions ${request.configPath}${
        request.mock ? " --mock" : ""
      }" to print every flag the run needs.`,
    ].join("\n"),
  );
}
