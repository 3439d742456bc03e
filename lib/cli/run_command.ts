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
 * @module
 */

import { join } from "../util/paths.ts";
import { describeSkipped } from "../data/corpus.ts";
import { RagbenchError, UsageError } from "../errors.ts";
import { createModels, describeModel } from "../llm/select.ts";
import { openJsonlWriter, readJsonl, rewriteJsonl } from "../report/jsonl.ts";
import { summarize, writeSummaries } from "../report/outputs.ts";
import { REPORT_FILES, writeRunReport } from "../report/run_report.ts";
import { resolvedConfigYaml } from "../report/resolved_config.ts";
import { TREC_FOLDER, writeTrecFiles } from "../report/trec_run.ts";
import { jobKey, runQuestions } from "../run/runner.ts";
import { finishManifest, MANIFEST_FILE, type RunManifest } from "../run/manifest.ts";
import { trimWrittenResult } from "../report/held_result.ts";
import { previousResults } from "../run/previous_results.ts";
import { checkRunDir, freeRunDir, RUN_FILES } from "../run/run_dir.ts";
import { acquireRunLock } from "../run/run_lock.ts";
import type { QuestionResult } from "../types.ts";
import { describeFsError, writeFileAtomic } from "../util/fs.ts";
import { type CommandSpec, intOption, type ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import { offersBuiltins, type Plan, planSystems } from "../plan/plan.ts";
import { startWorker } from "../../tools/sandbox/early_worker.ts";
import { createProgress, type ProgressMode } from "./progress.ts";
import { loadData, REGISTRIES } from "../plan/setup.ts";
import { missingNeeds, permissionFlags } from "../plan/permissions.ts";
import type { Need } from "../plan/need.ts";
import {
  needOptionWords,
  permissionsArgsNeeds,
  runArgsNeeds,
  selectedConfig,
  systemsOption,
} from "./run_needs.ts";
import { commandLine, DEFAULT_INVOCATION, shownPath } from "./invocation.ts";
import { loadConfig } from "../config/load.ts";
import { resolveCacheDir } from "../cache/cache_dir.ts";
import { createEmbedderPool } from "../dense/embedders.ts";
import { estimateLines, estimateRun } from "../run/estimate.ts";
import { checkEstimate, estimateSystems } from "./preflight.ts";
import {
  checkCostCaps,
  manifestPrices,
  priceRun,
  priceWarnings,
  unpricedOf,
} from "../plan/price_checks.ts";
import { VERSION } from "../version.ts";
import { CACHE_OPTIONS, cacheUseFromArgs } from "./cache_options.ts";
import { openRunCache, replayMisses } from "./run_cache.ts";
import { checkResume, currentManifest, writeManifest } from "./run_manifest.ts";
import { resumeCommand, writeFailure } from "./resume_hint.ts";
import { printResults } from "./print_results.ts";
import { mockPolicyNote } from "./mock_note.ts";
import { callsModel } from "../../systems/registry.ts";
import { plural } from "../util/plural.ts";

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
export async function runCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const configPath = args.positionals[0];
  const mock = args.options.has("mock");
  const resume = dirOption(args, "resume");
  const out = dirOption(args, "out");
  if (resume !== undefined && out !== undefined) {
    throw new UsageError("Give either --out or --resume, not both (--resume DIR writes into DIR).");
  }
  const selection = {
    mock,
    systems: systemsOption(args),
    limit: intOption(args, "limit", { min: 1, max: 1_000_000 }),
  };
  const concurrencyOption = intOption(args, "concurrency", { min: 1, max: 64 });
  const mode = progressMode(args, io);
  // --quiet prints only errors: `alert` carries what explains a run that failed or stopped.
  const alert = io.progress;
  const alertOut = io.out;
  if (mode === "quiet") io = quietIO(io);
  const config = await loadConfig(configPath, REGISTRIES);
  const dir = resume ?? out ?? freeRunDir(defaultRunDir(config.name), pathExists);
  const cacheUse = cacheUseFromArgs(args);
  const cacheDir = cacheUse.dir;
  const dryRun = args.options.has("dry-run");
  const invocation = io.invocation ?? DEFAULT_INVOCATION;
  // Only the selected systems' needs: --systems a must not need system b's model host or key.
  const needed = selectedConfig(config, args);
  checkPermissions(
    runArgsNeeds(config, args),
    () =>
      commandLine(invocation, ["permissions", configPath, ...needOptionWords(args)], {
        needs: permissionsArgsNeeds(config, args),
      }),
  );
  const resumeHint = resumeCommand({
    configPath,
    dir,
    mock,
    systems: args.options.get("systems"),
    limit: args.options.get("limit"),
    junit: args.options.get("junit"),
    cache: ["cache", "cache-tools", "cache-dir"].flatMap((name): Array<[string, string]> => {
      const value = args.options.get(name);
      return value === undefined ? [] : [[name, value]];
    }),
  }, { invocation, needs: () => runArgsNeeds(config, resumedArgs(args, dir)) });
  // Before the data loads: a wrong folder is refused at once, and before anything is written.
  if (!dryRun) await checkRunDir(dir, { resume: resume !== undefined, resumeCommand: resumeHint });
  // The sandbox worker loads its modules while the data loads; the plan adopts it.
  using sandbox = !dryRun && offersBuiltins(needed) ? startWorker() : null;
  const loaded = await loadData(config, selection, { progress: io.progress, signal: io.signal });
  // After --systems: only the selected systems' prices are looked up and warned about.
  const prices = await priceRun(config, { mock });
  const unpriced = unpricedOf(config, prices, { mock });
  const priceLines = priceWarnings(unpriced, prices.catalog);
  const estimate = estimateRun(estimateSystems(config, mock, prices), loaded.questions, {
    repeats: config.evaluation.repeats,
    maxOutputChars: config.tools.max_output_chars,
  });
  if (dryRun) {
    io.out(estimateLines(estimate, { simulated: mock }).join("\n"));
    for (const warning of priceLines) io.progress(`warning: ${warning}`);
    return 0;
  }
  const concurrency = concurrencyOption ?? config.evaluation.concurrency;
  const ndcgK = Math.max(...config.evaluation.retrieval_k);
  using runCache = openRunCache(config, cacheUse, { mock });
  // A system that calls no model (retrieval_only) gets none: no key is read for it.
  const models = await createModels(config.systems.filter(callsModel), {
    mock,
    script: loaded.script,
    prices,
    ...(runCache.model === null ? {} : { cache: runCache.model }),
  });
  const runModel = describeModel(config.model, mock, prices);
  // After the key checks, so a missing key is reported first; before any tool starts. A replay
  // sends nothing and costs nothing, so the cap cannot be at risk; a --mock run's dollars are
  // simulated, so it is never refused over them.
  const replay = cacheUse.mode === "replay";
  checkCostCaps(config, unpriced, { mock, replay });
  if (!replay && !mock) {
    checkEstimate(estimate, config.evaluation.max_cost_usd, args.options.has("force"));
  }
  const resultsPath = join(dir, RUN_FILES.results);
  const startedAt = new Date().toISOString();
  using embedders = createEmbedderPool({
    mock,
    replay,
    price: (embedding) => prices.embedding(embedding).per_mtok,
    cacheDir: () => resolveCacheDir(cacheDir).dir,
    onProgress: (line) => io.progress(line),
  });
  // Tools start before the folder is made, so a tool that cannot load leaves nothing behind.
  let plan: Plan;
  try {
    plan = await planSystems(config, loaded.corpus, {
      concurrency,
      mock,
      models,
      progress: io.progress,
      embedders,
      toolCache: runCache.tools,
      retrievalCache: runCache.retrieval,
      // A Ctrl-C during an MCP server's start-up stops it at once, not when its handshake ends.
      mcp: { signal: io.signal },
      ...(sandbox ? { startedWorker: sandbox } : {}),
    });
  } catch (error) {
    if (!io.signal.aborted) throw error;
    alert("cancelled while the tools were starting: nothing was run.");
    return 130;
  }
  const unregisterPlan = io.onQuit?.(() => plan.close());
  try {
    await createRunDir(dir);
    const lock = await acquireRunLock(dir, { resume: resumeHint });
    // A hard quit (SIGTERM, a second Ctrl-C) must not leave a lock that looks stale.
    const unregisterLock = io.onQuit?.(async () => {
      await plan.close();
      await lock.release();
    });
    try {
      // Checked again under the lock: another run may have written here since.
      await checkRunDir(dir, { resume: resume !== undefined, resumeCommand: resumeHint });
      return await runLocked();
    } finally {
      unregisterLock?.();
      await lock.release();
    }
  } finally {
    unregisterPlan?.();
    await plan.close();
  }

  async function runLocked(): Promise<number> {
    let outcome;
    let previous: QuestionResult[] = [];
    let manifest: RunManifest;
    try {
      manifest = await currentManifest({
        version: VERSION,
        config,
        mock,
        modelId: runModel.id,
        pricing: runModel.pricing,
        prices: manifestPrices(config, prices, { mock }),
        limit: selection.limit ?? null,
        questions: loaded.questions.length,
        systems: plan.systems,
        summary: plan.summary,
        startedAt,
        indexing: await plan.retrievers.indexing(),
        // Not io.signal: a first Ctrl-C here must stop the run like one during loading (exit 130
        // with the summaries written), not abort the hashing with an error.
      });
      if (resume) {
        const check = await checkResume(dir, manifest, { force: args.options.has("force") });
        manifest = check.manifest;
        for (const d of check.forced) io.progress(`--force: resuming despite: ${d}`);
        const earlier = previousResults(
          await readJsonl(resultsPath, { repair: true }),
          resultsPath,
        );
        previous = earlier.results;
        // Their lines are in the file, and the rewrite reads them back from there.
        for (const result of previous) trimWrittenResult(result);
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
          models,
          concurrency,
          tools: new Map(plan.summary.map((s) => [s.name, s.tools])),
        }),
      );
      await writeManifest(dir, manifest);
      // Printed once the folder, lock and resume checks have passed (their errors come first).
      for (const line of estimateLines(estimate, { simulated: mock })) io.progress(line);
      io.progress(
        `ragbench ${VERSION}: ${plural(plan.systems.length, "system")} × ${
          plural(loaded.questions.length, "question")
        } × ${plural(config.evaluation.repeats, "repeat")}, ${
          modelsLine(plan.summary)
        }, writing ${dir}`,
      );
      for (const line of describeSkipped(loaded.skipped)) io.progress(line);
      for (const warning of loaded.warnings) io.progress(`warning: ${warning}`);
      for (const warning of priceLines) io.progress(`warning: ${warning}`);
      if (mock && config.evaluation.max_cost_usd !== null) {
        io.progress(
          "--mock: evaluation.max_cost_usd is not applied (the mock's dollars are simulated)",
        );
      }
      const writer = await openJsonlWriter(resultsPath);
      const progress = createProgress(mode, {
        ndcgK,
        simulated: mock,
        line: (text) => io.progress(text),
        ...(io.redraw ? { redraw: io.redraw } : {}),
        now: () => performance.now(),
        concurrency,
      });
      let quitting = false;
      const unregister = io.onQuit?.(async () => {
        quitting = true;
        progress.finish();
        await writer.flush();
        alert(
          `Stopped at once: the finished results are kept in ${resultsPath}; the summaries are written when the run is resumed. Continue with:\n  ${resumeHint}`,
        );
        writer.close();
      });
      try {
        outcome = await runQuestions({
          systems: plan.systems,
          questions: loaded.questions,
          repeats: config.evaluation.repeats,
          concurrency,
          questionTimeoutMs: config.evaluation.question_timeout_s * 1000,
          // A --mock run spends nothing: its simulated dollars never stop it.
          maxCostUsd: mock ? null : config.evaluation.max_cost_usd,
          retrievalK: config.evaluation.retrieval_k,
          done: new Set(previous.map((r) => jobKey(r.system, r.question_id, r.repeat))),
          // Once quitting, nothing more is written: the line in progress was flushed.
          // Once written, a result keeps only what the summaries and the report read of it.
          sink: (result) =>
            quitting
              ? new Promise<void>(() => {})
              : writer.append(result).then(() => trimWrittenResult(result)),
          reporter: progress,
          signal: io.signal,
        });
      } catch (error) {
        throw writeFailure(error, { results: resultsPath, resume: resumeHint });
      } finally {
        progress.finish();
        unregister?.();
        writer.close();
      }
    } finally {
      // Tool processes are not needed for the summaries.
      await plan.close();
    }

    const order = sortKey(plan.summary.map((s) => s.name), loaded.questions.map((q) => q.id));
    // Each line's key once, not at every comparison.
    const keyed = [...previous, ...outcome.results].map((r) => ({ r, key: order(r) }));
    keyed.sort((a, b) => a.key - b.key);
    const all = keyed.map((k) => k.r);
    const known = keyed.filter((k) => k.key !== Infinity).map((k) => k.r);
    const summaries = summarize(plan.summary, known, { retrievalK: config.evaluation.retrieval_k });
    const modelIds = new Map(plan.summary.map((s) => [s.name, s.model]));
    let report;
    let trec;
    try {
      await rewriteJsonl(resultsPath, all);
      await writeSummaries(dir, summaries);
      trec = await writeTrecFiles(dir, plan.summary, known, loaded.questions);
      report = await writeRunReport({
        name: config.name,
        dir,
        systems: plan.summary.map((s) => ({
          name: s.name,
          type: s.type,
          model: s.model,
          networkTools: s.networkTools,
        })),
        lines: known,
        summaries,
        indexing: manifest.sessions.flatMap((s) => s.indexing ?? []),
        retrievalK: config.evaluation.retrieval_k,
        ...(args.options.has("junit") ? { junitPath: args.options.get("junit")! } : {}),
      });
      await writeManifest(dir, finishManifest(manifest, new Date().toISOString()));
    } catch (error) {
      throw writeFailure(error, { results: resultsPath, resume: resumeHint });
    }
    if (trec.skipped > 0) {
      io.progress(
        `warning: ${
          plural(trec.skipped, "line")
        } left out of the TREC files in ${TREC_FOLDER}/: their question or document id holds whitespace, or their line has no scores`,
      );
    }

    // --quiet: of the table and recommendation, only the systems that failed (an error each).
    if (mode === "quiet") {
      for (const f of report.recommendation.failed) {
        alertOut(`failed: ${f}`);
      }
    }
    printResults(io, summaries.systems, report, {
      models: modelIds,
      retrievalK: config.evaluation.retrieval_k,
    });
    const policyNote = mockPolicyNote(mock, config.mock_script, config.systems.some(callsModel));
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
      alert(
        `cancelled: ${
          plural(outcome.notRun, "question")
        } not run${unkept}; the summaries cover what finished. Finish with:\n  ${resumeHint}`,
      );
      return 130;
    }
    const cacheLine = runCache.summaryLine();
    if (cacheLine !== null) io.progress(cacheLine);
    let code = replayMisses(known, alert);
    if (outcome.stoppedBy === "max_cost_usd") {
      alert(
        `stopped: evaluation.max_cost_usd (${config.evaluation.max_cost_usd}) reached; ${
          plural(outcome.notRun, "question")
        } not run`,
      );
      code = 1;
    }
    for (const s of summaries.systems) {
      if (s.questions > 0 && s.errors === s.questions) {
        alert(
          `failed: every question of ${s.system} errored; see "error" in ${RUN_FILES.results}`,
        );
        code = 1;
      } else if (s.errors > 0) {
        alert(`warning: ${s.errors} of ${plural(s.questions, "question")} of ${s.system} errored`);
      }
    }
    return code;
  }
}

/** Why `count` questions that ran were not kept. */
function interruptedNote(count: number): string {
  return `${
    count === 1 ? "it was" : `${count} of them were`
  } not kept: a tool process stopped while ${count === 1 ? "it" : "they"} ran`;
}

/**
 * A folder option's value; an empty one is a usage error.
 *
 * @throws {UsageError} for `--out ""` (an unset variable in a script).
 */
function dirOption(args: ParsedArgs, name: "out" | "resume" | "cache-dir"): string | undefined {
  const value = args.options.get(name);
  if (value !== undefined && value.trim() === "") {
    throw new UsageError(`--${name} is empty; give it a folder: --${name} DIR.`);
  }
  return value;
}

/** The options of the command that continues this run in `dir`: `--resume dir`, no `--out`. */
function resumedArgs(args: ParsedArgs, dir: string): ParsedArgs {
  const options = new Map(args.options);
  options.delete("out");
  options.delete("dry-run");
  options.set("resume", dir);
  return { positionals: args.positionals, options };
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

/** `model X` when every system shares one model, else `models X, Y`; `no model` when none calls one. */
function modelsLine(systems: ReadonlyArray<{ model: string | null }>): string {
  const ids = [...new Set(systems.flatMap((s) => s.model === null ? [] : [s.model]))];
  if (ids.length === 0) return "no model";
  return `${ids.length === 1 ? "model" : "models"} ${ids.join(", ")}`;
}

/** `io` with nothing printed but errors (thrown ones, which main.ts prints). */
function quietIO(io: CliIO): CliIO {
  const { redraw: _, ...rest } = io;
  return { ...rest, out: () => {}, progress: () => {} };
}

function progressMode(args: ParsedArgs, io: CliIO): ProgressMode {
  if (args.options.has("quiet") && args.options.has("verbose")) {
    throw new UsageError("Give either --quiet or --verbose, not both.");
  }
  if (args.options.has("quiet")) return "quiet";
  if (args.options.has("verbose")) return "verbose";
  return io.redraw ? "live" : "periodic";
}

/** Orders lines by system (config order), question (file order), repeat; unknown ones last. */
function sortKey(systems: string[], questions: string[]): (r: QuestionResult) => number {
  const s = new Map(systems.map((name, i) => [name, i]));
  const q = new Map(questions.map((id, i) => [id, i]));
  return (r) => {
    const si = s.get(r.system);
    const qi = q.get(r.question_id);
    if (si === undefined || qi === undefined) return Infinity;
    return (si * questions.length + qi) * 1000 + r.repeat;
  };
}

function defaultRunDir(name: string): string {
  const t = Temporal.Now.plainDateTimeISO("UTC");
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = `${t.year}${pad(t.month)}${pad(t.day)}-${pad(t.hour)}${pad(t.minute)}${
    pad(t.second)
  }`;
  return join("runs", `${name}-${stamp}`);
}

function pathExists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
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
