/**
 * Whether a set of shard folders makes one whole run, for `ragbench merge`:
 * every folder a shard (`run.json` has a `shard` block), all of one run
 * (the same manifest apart from the shard's own index: config, inputs,
 * scorer, model, ragbench version, shard count and layout), each shard
 * given once, none missing. Pure: the command reads the files.
 *
 * And the manifest of the merged run: the shards' common identity, every
 * shard's sessions (each built its own indexes and ran its own jobs), the
 * earliest start and the latest end, and where each part came from.
 *
 * @module
 */

import type { RunManifest } from "./manifest.ts";
import { manifestDifferences } from "./manifest_diff.ts";
import { hashValue } from "./digest.ts";
import { dirname, relativePath } from "../util/paths.ts";
import type { ShardBlock } from "./shard.ts";

/** One folder given to merge, with its parsed `run.json`. */
export interface ShardInput {
  dir: string;
  manifest: RunManifest;
}

/** A folder that is a shard. */
export interface ShardPart extends ShardInput {
  block: ShardBlock;
}

/** The verdict on a set of folders. */
export type ShardSetCheck =
  | {
    ok: true;
    /** The shards given, by index. */
    parts: ShardPart[];
    count: number;
    /** Indices (1-based) of the shards not given. */
    missing: number[];
  }
  | { ok: false; problems: string[] };

/**
 * Checks that `inputs` are shards of one run, each once; missing shards are
 * listed (the caller decides whether that is allowed).
 */
export function checkShardSet(inputs: readonly ShardInput[]): ShardSetCheck {
  const problems: string[] = [];
  const parts: ShardPart[] = [];
  for (const input of inputs) {
    const block = input.manifest.shard;
    if (block === undefined) {
      problems.push(
        `"${input.dir}" is a whole run (made without --shard), not a shard: merge joins the ` +
          `folders that \`ragbench run CONFIG --shard I/N\` wrote.`,
      );
    } else parts.push({ ...input, block });
  }
  if (parts.length === 0) return { ok: false, problems };
  const first = parts[0];
  for (const part of parts.slice(1)) {
    const differences = shardDifferences(first, part);
    if (differences.length) {
      problems.push(
        [
          `"${part.dir}" is not a shard of the same run as "${first.dir}":`,
          ...differences.map((d) => `  ${d}`),
        ].join("\n"),
      );
    }
  }
  const byIndex = new Map<number, ShardPart[]>();
  for (const part of parts) {
    const list = byIndex.get(part.block.index) ?? [];
    list.push(part);
    byIndex.set(part.block.index, list);
  }
  for (const [index, list] of [...byIndex].sort((a, b) => a[0] - b[0])) {
    if (list.length > 1) {
      problems.push(
        `shard ${index}/${first.block.count} is given ${list.length} times (${
          list.map((p) => `"${p.dir}"`).join(", ")
        }): give each shard once.`,
      );
    }
  }
  if (problems.length) return { ok: false, problems };
  const count = first.block.count;
  const missing: number[] = [];
  for (let i = 1; i <= count; i++) if (!byIndex.has(i)) missing.push(i);
  parts.sort((a, b) => a.block.index - b.block.index);
  return { ok: true, parts, count, missing };
}

/** What differs between two shards' manifests beyond the shard's own index. */
function shardDifferences(a: ShardPart, b: ShardPart): string[] {
  const out: string[] = [];
  if (a.manifest.ragbench_version !== b.manifest.ragbench_version) {
    out.push(
      `ragbench version: ${a.manifest.ragbench_version} → ${b.manifest.ragbench_version}`,
    );
  }
  if (a.block.count !== b.block.count) {
    out.push(`shard count: ${a.block.count} → ${b.block.count} (--shard I/N with another N)`);
  } else if (hashValue(a.block.layout) !== hashValue(b.block.layout)) {
    out.push("the jobs of the whole run differ (systems, questions or repeats)");
  }
  out.push(...manifestDifferences(placeFree(a.manifest), placeFree(b.manifest)));
  if (out.length === 0 && a.manifest.model_id !== b.manifest.model_id) {
    out.push(`model: ${a.manifest.model_id} → ${b.manifest.model_id}`);
  }
  return out;
}

/**
 * The manifest without its shard block, its input files named relative to the config's folder:
 * shards run in checkouts at different places (CI runners, pods) read the same files, which the
 * content hashes compare.
 */
function placeFree(manifest: RunManifest): RunManifest {
  const { shard: _, ...rest } = manifest;
  const base = dirname(manifest.config_file);
  const relative = (list: RunManifest["inputs"]["corpus"]) =>
    list.map((d) => ({ ...d, path: relativePath(base, d.path) }));
  return {
    ...rest,
    inputs: {
      ...manifest.inputs,
      corpus: relative(manifest.inputs.corpus),
      questions: relative(manifest.inputs.questions),
      mock_script: relative(manifest.inputs.mock_script),
      custom_tools: relative(manifest.inputs.custom_tools),
    },
  };
}

/** The `merged_from` entry of one shard in the merged `run.json`. */
export type MergedFrom = NonNullable<RunManifest["merged_from"]>[number];

/**
 * What the merged `run.json` says is missing (only with `--allow-partial`):
 * the shards not given (`i/n`), the jobs of the whole run with no result,
 * and the whole run's jobs.
 */
export type MergeGaps = NonNullable<RunManifest["partial"]>;

/** The sentence every output of a partial merge carries. */
export function gapsNote(gaps: MergeGaps): string {
  const shards = gaps.missing_shards.length
    ? ` (shard${gaps.missing_shards.length === 1 ? "" : "s"} ${
      gaps.missing_shards.join(", ")
    } not merged)`
    : "";
  return `Partial run: ${gaps.missing_jobs} of the run's ${gaps.run_jobs} jobs have no result` +
    `${shards}; every figure covers only the jobs that ran (merged with --allow-partial).`;
}

/**
 * The merged run's manifest: the first shard's identity without the shard
 * block, every shard's sessions in shard order, the earliest start and the
 * latest end (null when a shard has none), the shards it came from and,
 * for a partial merge, what is missing.
 */
export function mergedManifest(
  parts: readonly ShardPart[],
  options: { jobs: ReadonlyMap<number, number>; gaps: MergeGaps | null },
): RunManifest {
  const { shard: _, ...identity } = parts[0].manifest;
  const starts = parts.map((p) => p.manifest.started_at).sort();
  const ends = parts.map((p) => p.manifest.ended_at);
  const ended = ends.every((e) => e !== null) ? (ends as string[]).sort().at(-1)! : null;
  const mergedFrom: MergedFrom[] = parts.map((p) => ({
    shard: `${p.block.index}/${p.block.count}`,
    dir: p.dir,
    started_at: p.manifest.started_at,
    ended_at: p.manifest.ended_at,
    jobs: options.jobs.get(p.block.index) ?? 0,
  }));
  return {
    ...identity,
    started_at: starts[0],
    ended_at: ended,
    sessions: parts.flatMap((p) => p.manifest.sessions),
    merged_from: mergedFrom,
    ...(options.gaps ? { partial: options.gaps } : {}),
  };
}
