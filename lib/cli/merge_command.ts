/**
 * `ragbench merge OUT SHARD_DIR...`: joins the run folders that `ragbench
 * run CONFIG --shard I/N` wrote into one run folder equal to the one the
 * unsharded run writes (its results file holds the very lines the shards
 * wrote, in the whole run's order; its summaries, report, statistics and
 * TREC files are made from them as `run` makes its own).
 *
 * Refused (exit 2), with what to do: a folder that is not a shard, shards of
 * different runs (config, inputs, scorer, model, ragbench version, shard
 * count), a shard given twice, a missing shard, a shard that does not hold
 * all its jobs (cancelled, or still running), a line that is not its
 * shard's. `--allow-partial` merges what there is of complete and
 * incomplete shards and says what is missing in run.json, summary.md,
 * report.html and on the console.
 *
 * @module
 */

import { join } from "../util/paths.ts";
import { RagbenchError, UsageError } from "../errors.ts";
import { writeSummaries } from "../report/outputs.ts";
import { readRun, summarizeRun } from "../report/read_run.ts";
import { writeRunReport } from "../report/run_report.ts";
import { TREC_FOLDER, writeTrecFiles } from "../report/trec_run.ts";
import { MANIFEST_FILE, parseManifest } from "../run/manifest.ts";
import { checkRunDir, RUN_FILES } from "../run/run_dir.ts";
import { acquireRunLock } from "../run/run_lock.ts";
import {
  checkShardSet,
  gapsNote,
  mergedManifest,
  type MergeGaps,
  type ShardInput,
  type ShardPart,
} from "../run/shard_set.ts";
import { mergedLineBytes, readShardLines, type ShardLines, trecLines } from "../run/shard_lines.ts";
import { describeFsError, writeChunksAtomic, writeFileAtomic } from "../util/fs.ts";
import { plural } from "../util/plural.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import { commandLine, DEFAULT_INVOCATION } from "./invocation.ts";
import { printResults } from "./print_results.ts";
import { writeManifest } from "./run_manifest.ts";

/** Declaration of `ragbench merge`. */
export const MERGE_SPEC: CommandSpec = {
  name: "merge",
  summary: "Join the run folders of `run --shard I/N` into one run folder (the whole run's).",
  positionals: [{ name: "OUT" }, { name: "SHARD_DIR", variadic: true }],
  options: [
    {
      name: "allow-partial",
      description: "Merge even when shards or jobs are missing; every output says what is missing.",
    },
  ],
  notes: "OUT must be new or empty. Each SHARD_DIR is a folder written by\n" +
    "`ragbench run CONFIG --shard I/N` (I from 1 to N), every shard once, all of one run.\n" +
    "Exit status: 0 merged; 2 usage error, or shards that are missing, incomplete,\n" +
    "given twice or of different runs (the message names them and what to do).",
};

/** Runs the command; returns the exit code. */
export async function mergeCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const [out, ...dirs] = args.positionals.map((p) => p.replace(/(?<=.)\/+$/, ""));
  const allowPartial = args.options.has("allow-partial");
  if (dirs.length === 0) {
    throw new UsageError("Give the shard folders to merge: ragbench merge OUT SHARD_DIR...");
  }
  if (dirs.includes(out)) {
    throw new UsageError(`OUT ("${out}") is one of the shard folders: merge into a new folder.`);
  }
  const inputs = await readInputs(dirs);
  const check = checkShardSet(inputs);
  if (!check.ok) {
    throw new UsageError(
      [...check.problems, "Merge the folders of one sharded run, each shard once."].join("\n"),
    );
  }
  const { parts, count, missing } = check;
  const first = parts[0];
  const invocation = io.invocation ?? DEFAULT_INVOCATION;
  const runAgain = (index: number, how: string[]) =>
    commandLine(invocation, [
      "run",
      first.manifest.config_file,
      "--shard",
      `${index}/${count}`,
      ...how,
      ...(first.manifest.mock ? ["--mock"] : []),
      ...(first.manifest.selection.limit === null
        ? []
        : ["--limit", String(first.manifest.selection.limit)]),
    ], { unstable: true });
  if (missing.length && !allowPartial) {
    throw new UsageError(
      [
        `Cannot merge: ${plural(missing.length, "shard")} of ${count} ${
          missing.length === 1 ? "is" : "are"
        } missing: ${missing.map((i) => `${i}/${count}`).join(", ")}. Run ${
          missing.length === 1 ? "it" : "each"
        } and give its folder too, e.g.:`,
        `  ${runAgain(missing[0], ["--out", `DIR${missing[0]}`])}`,
        "or pass --allow-partial to merge what there is (every output then says what is missing).",
      ].join("\n"),
    );
  }
  const lines = readShardLines(
    parts.map((p) => ({ dir: p.dir, index: p.block.index })),
    first.block.layout,
    count,
  );
  const short = shortShards(parts, lines);
  if (short.length && !allowPartial) {
    throw new UsageError(
      [
        `Cannot merge: ${short.length === 1 ? "a shard does" : "shards do"} not hold all ${
          short.length === 1 ? "its" : "their"
        } jobs (cancelled, or not finished):`,
        ...short.map((s) =>
          `  shard ${s.part.block.index}/${count} ("${s.part.dir}"): ${s.found} of ${
            plural(s.expected, "job")
          }; finish it with:\n    ${runAgain(s.part.block.index, ["--resume", s.part.dir])}`
        ),
        "or pass --allow-partial to merge what there is (every output then says what is missing).",
      ].join("\n"),
    );
  }
  await checkRunDir(out, { resume: false });
  const missingJobs = lines.partOf.reduce((n, p) => n + (p === -1 ? 1 : 0), 0);
  const gaps: MergeGaps | null = missing.length || missingJobs
    ? {
      missing_shards: missing.map((i) => `${i}/${count}`),
      missing_jobs: missingJobs,
      run_jobs: lines.partOf.length,
    }
    : null;
  await createDir(out);
  const lock = await acquireRunLock(out, { resume: `rm -r ${out}; then merge again` });
  const unregister = io.onQuit?.(() => lock.release());
  try {
    await writeMerged(out, parts, lines, gaps);
    // The TREC files are written: their rankings need not be held while the report is made.
    lines.trec.length = 0;
  } finally {
    unregister?.();
    await lock.release();
  }
  const run = await readRun(out);
  const summaries = summarizeRun(run);
  await writeSummaries(out, summaries);
  const note = gaps && gapsNote(gaps);
  const report = await writeRunReport({
    name: run.name,
    dir: out,
    systems: run.systems,
    lines: run.lines,
    embedded: run.embedded,
    summaries,
    indexing: run.indexing,
    ...(run.retrievalK ? { retrievalK: run.retrievalK } : {}),
    ...(run.warnings.length ? { notes: run.warnings } : {}),
  });
  printResults(io, summaries.systems, report, {
    models: new Map(run.systems.map((s) => [s.name, s.model])),
    ...(run.retrievalK ? { retrievalK: run.retrievalK } : {}),
  });
  io.progress(
    `merged ${plural(parts.length, "shard")} of ${count} into ${out}/ (${
      plural(run.lines.length, "result line")
    })`,
  );
  if (note) io.progress(`warning: ${note}`);
  if (lines.duplicates) {
    io.progress(
      `note: ${
        plural(lines.duplicates, "line")
      } repeated an earlier line's job in the same shard; the later ones are used`,
    );
  }
  return 0;
}

/** Each folder's `run.json`, parsed; every folder that has none is named at once. */
async function readInputs(dirs: readonly string[]): Promise<ShardInput[]> {
  const problems: string[] = [];
  const inputs: ShardInput[] = [];
  for (const dir of dirs) {
    const path = join(dir, MANIFEST_FILE);
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      problems.push(
        `"${dir}" is not a run folder: ${MANIFEST_FILE} cannot be read (${
          describeFsError(error)
        }).`,
      );
      continue;
    }
    try {
      inputs.push({ dir, manifest: parseManifest(text, path) });
    } catch (error) {
      if (!(error instanceof RagbenchError)) throw error;
      problems.push(error.message);
      continue;
    }
    if (await exists(join(dir, "run.lock"))) {
      problems.push(
        `"${dir}" has a run.lock: its run is still going (or stopped without finishing). ` +
          "Wait for it, or finish it with --resume, before merging.",
      );
    }
  }
  if (problems.length) throw new UsageError(problems.join("\n"));
  return inputs;
}

/** Shards holding fewer lines than their jobs. */
function shortShards(parts: readonly ShardPart[], lines: ShardLines) {
  return parts.flatMap((part) => {
    const expected = lines.expected.get(part.block.index) ?? 0;
    const found = lines.found.get(part.block.index) ?? 0;
    return found < expected ? [{ part, expected, found }] : [];
  });
}

/** Writes the merged folder's files but the summaries and report (made from them after). */
async function writeMerged(
  out: string,
  parts: readonly ShardPart[],
  lines: ShardLines,
  gaps: MergeGaps | null,
): Promise<void> {
  const first = parts[0];
  await writeFileAtomic(
    join(out, RUN_FILES.config),
    await Deno.readTextFile(join(first.dir, RUN_FILES.config)),
  );
  const jobs = new Map(parts.map((p) => [p.block.index, lines.found.get(p.block.index) ?? 0]));
  await writeManifest(out, mergedManifest(parts, { jobs, gaps }));
  await writeChunksAtomic(join(out, RUN_FILES.results), mergedLineBytes(lines));
  const qrels = await Deno.readTextFile(join(first.dir, TREC_FOLDER, "qrels.txt")).catch(
    (error) => {
      throw new RagbenchError(
        "data",
        `Cannot read "${join(first.dir, TREC_FOLDER, "qrels.txt")}": ${
          describeFsError(error)
        }. Every shard writes the run's qrels; was the folder copied whole?`,
        { cause: error },
      );
    },
  );
  await writeTrecFiles(
    out,
    first.manifest.systems.map((s) => ({ name: s.name, tools: s.tools })),
    trecLines(lines),
    { qrels },
  );
}

async function createDir(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (error) {
    throw new RagbenchError("io", `Cannot create "${dir}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
