/**
 * The run command's manifest step: hashes what the run reads, builds
 * `run.json` from the loaded config and the planned systems, and on
 * `--resume` compares it with the earlier run's, refusing to mix two runs
 * unless `--force` says so knowingly.
 *
 * @module
 */

import { persistedRetriever } from "../config/retriever_secrets.ts";
import { effectivePrompts } from "../prompts/prompt_set.ts";
import { corpusSourcePath } from "../data/corpus.ts";
import { questionSourcePath } from "../data/questions.ts";
import { join } from "../util/paths.ts";
import type { Config, RetrieverChoice } from "../config/types.ts";
import { RagbenchError, UsageError } from "../errors.ts";
import type { Pricing } from "../llm/model.ts";
import type { ManifestPrices } from "../run/manifest.ts";
import type { IndexingRecord } from "../retrieval/registry.ts";
import type { PlannedSystem } from "../run/runner.ts";
import { digestPaths } from "../run/digest.ts";
import {
  buildManifest,
  currentMachine,
  MANIFEST_FILE,
  parseManifest,
  resumedManifest,
  type RunManifest,
} from "../run/manifest.ts";
import { manifestDifferences } from "../run/manifest_diff.ts";
import { customSystemsOf } from "../plan/custom_system_needs.ts";
import { toolRefsOf } from "../plan/tool_sources/registry.ts";
import { describeFsError, writeFileAtomic } from "../util/fs.ts";
import type { ShardBlock } from "../run/shard.ts";

/** What the manifest of this run is built from. */
export interface ManifestContext {
  version: string;
  config: Config;
  mock: boolean;
  modelId: string;
  pricing: Pricing | null;
  /** Every model's and embedding model's price (run.json `prices`). */
  prices?: ManifestPrices;
  limit: number | null;
  questions: number;
  systems: readonly PlannedSystem[];
  /** The systems as the summaries show them (model, network tools), by name. */
  summary: ReadonlyArray<{ name: string; model: string | null; networkTools: readonly string[] }>;
  startedAt: string;
  /** What embedding the passages cost (recorded in this session). */
  indexing?: readonly IndexingRecord[];
  /** Aborts the hashing (the file being read stops at the next 1 MiB). */
  signal?: AbortSignal;
  /** `--shard`: this shard and the whole run's layout. */
  shard?: ShardBlock;
}

/** Hashes the run's files and builds its manifest. */
export async function currentManifest(ctx: ManifestContext): Promise<RunManifest> {
  const { config } = ctx;
  // The files each tool's source says decide its results (a custom tool's module).
  const toolFiles = [
    ...new Set([
      ...toolRefsOf(config).flatMap(({ ref, source }) => source.files(ref)),
      // A custom system's module decides its answers too.
      ...customSystemsOf(config).map((s) => s.module),
    ]),
  ];
  // A system's retriever settings decide its results: hash them, not just the name it gives.
  const retrievers = new Map(config.systems.map((s) => [s.name, s.retriever]));
  const shown = new Map(ctx.summary.map((s) => [s.name, s]));
  return buildManifest({
    version: ctx.version,
    config,
    mock: ctx.mock,
    modelId: ctx.modelId,
    pricing: ctx.pricing,
    ...(ctx.prices === undefined ? {} : { prices: ctx.prices }),
    limit: ctx.limit,
    questions: ctx.questions,
    files: {
      corpus: await digestPaths(config.corpus.map(corpusSourcePath), { signal: ctx.signal }),
      // A BEIR split is part of the question set's identity: the folder alone does not say it.
      questions: (await digestPaths(config.questions.map(questionSourcePath), {
        signal: ctx.signal,
      })).map((d, i) => {
        const source = config.questions[i];
        return typeof source === "string" ? d : { ...d, path: `${d.path} (split ${source.split})` };
      }),
      mock_script: ctx.mock ? await digestPaths(config.mock_script, { signal: ctx.signal }) : [],
      custom_tools: await digestPaths(toolFiles, { signal: ctx.signal, ifReadable: true }),
    },
    systems: ctx.systems.map((s) => ({
      name: s.name,
      type: s.def.type,
      options: withRetriever(s.options, retrievers.get(s.name) ?? null),
      prompts: s.def.prompts ? effectivePrompts(s.def.prompts, s.options) : [],
      toolSpecs: s.toolbox.specs,
      model: shown.get(s.name)?.model ?? null,
      networkTools: shown.get(s.name)?.networkTools ?? [],
    })),
    startedAt: ctx.startedAt,
    machine: currentMachine(),
    ...(ctx.indexing ? { indexing: ctx.indexing } : {}),
    ...(ctx.shard ? { shard: ctx.shard } : {}),
  });
}

/** The manifest a resumed run writes, and what `--force` overrode. */
export interface ResumeCheck {
  manifest: RunManifest;
  /** Differences accepted with --force (empty when the runs match). */
  forced: string[];
}

/**
 * Compares the earlier run's `run.json` in `dir` with `current`.
 *
 * @throws {UsageError} listing what differs (or that there is no readable
 *   run.json), unless `force`.
 */
export async function checkResume(
  dir: string,
  current: RunManifest,
  options: { force: boolean },
): Promise<ResumeCheck> {
  const path = join(dir, MANIFEST_FILE);
  let previous: RunManifest;
  try {
    previous = parseManifest(await Deno.readTextFile(path), path);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound
      ? `it has no ${MANIFEST_FILE} (an older ragbench made it, or ragbench did not)`
      : error instanceof RagbenchError
      ? error.message
      : `${MANIFEST_FILE} cannot be read: ${describeFsError(error)}`;
    const reason = `Cannot check that --resume ${dir} continues the same run: ${why}.`;
    if (!options.force) {
      throw new UsageError(`${reason} Add --force to continue it anyway.`, { cause: error });
    }
    const sessions = current.sessions.map((s) => ({ ...s, forced_differences: [reason] }));
    return { manifest: { ...current, sessions }, forced: [reason] };
  }
  const differences = manifestDifferences(previous, current);
  if (differences.length && !options.force) {
    throw new UsageError(
      [
        `--resume ${dir}: this run differs from the one in the folder, so its results would mix two runs:`,
        ...differences.map((d) => `  ${d}`),
        "Resume with the same config and files, write a new run with --out, or add --force to continue anyway.",
      ].join("\n"),
    );
  }
  return { manifest: resumedManifest(previous, current, differences), forced: differences };
}

/** Writes `run.json` into `dir` (atomically). */
export async function writeManifest(dir: string, manifest: RunManifest): Promise<void> {
  await writeFileAtomic(join(dir, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + "\n");
}

/** A system's options with its `retriever:` replaced by the retriever's full settings. */
function withRetriever(
  options: Record<string, unknown>,
  choice: RetrieverChoice | null,
): Record<string, unknown> {
  return choice
    ? { ...options, retriever: { name: choice.name, ...persistedRetriever(choice.config) } }
    : options;
}
