/**
 * Checks the folder a run writes into before anything is written: `--out`
 * must be a new or empty folder (never a file, never a folder of the user's
 * own files, never an earlier run, which `--resume` continues), and
 * `--resume` must name an earlier run's folder. The decision is a pure
 * function of what is there ({@link runDirProblem}); {@link checkRunDir}
 * reads the folder and throws the message. {@link RUN_FILES} names the files
 * a run writes there.
 *
 * @module
 */

import { dirname, join } from "../util/paths.ts";
import { RagbenchError, UsageError } from "../errors.ts";
import { describeFsError } from "../util/fs.ts";
import { LOCK_FILE } from "./run_lock.ts";

/** File names inside a run directory. */
export const RUN_FILES = {
  config: "config.resolved.yaml",
  results: "per_question_results.jsonl",
  summary: "metrics_summary.csv",
  toolUsage: "tool_usage.csv",
} as const;

/** Entries named in a refusal before "and N more". */
const ENTRIES_SHOWN = 5;

/** What stands at the run directory's path. */
export type DirState =
  | { kind: "missing" }
  | { kind: "file" }
  | { kind: "other" }
  /** A part of the path above it is a regular file (`results.txt/sub`): nothing can be made there. */
  /** `file`: the part of the path that is a file; null when it could not be read (permissions). */
  | { kind: "under_file"; file: string | null }
  | { kind: "folder"; entries: readonly string[] };

/**
 * Why a run cannot write into a folder in this state; null when it can.
 * `--out` accepts a missing or empty folder; `--resume` needs the results
 * file. An existing run under `--out` is pointed to `--resume`, by the
 * command that continues it when `options.resumeCommand` gives it.
 */
export function runDirProblem(
  dir: string,
  state: DirState,
  options: { resume: boolean; resumeCommand?: string },
): string | null {
  const flag = options.resume ? "--resume" : "--out";
  if (state.kind === "file") {
    return `${flag} ${dir}: that is a file, not a folder; name a folder${
      options.resume ? " holding an earlier run" : " (new or empty) for the run"
    }.`;
  }
  if (state.kind === "under_file") {
    const what = state.file === null ? "a part of that path" : `"${state.file}"`;
    return `${flag} ${dir}: ${what} is a file, so no folder can be${
      options.resume ? " found" : " made"
    } under it; name a path whose parent folders are folders.`;
  }
  if (state.kind === "other") {
    return `${flag} ${dir}: that is neither a folder nor a file (a broken link, a device or a socket); name a folder.`;
  }
  const entries = state.kind === "folder" ? state.entries : [];
  const hasResults = entries.includes(RUN_FILES.results);
  if (options.resume) {
    if (state.kind === "missing") return `--resume ${dir}: there is no such folder.`;
    if (!hasResults) return `--resume ${dir}: there is no ${RUN_FILES.results} to continue.`;
    return null;
  }
  if (hasResults) {
    return options.resumeCommand === undefined
      ? `"${dir}" already holds results; continue it with --resume ${dir}, or choose another --out.`
      : `"${dir}" already holds results; continue that run with:\n  ${options.resumeCommand}\n` +
        "or choose another --out.";
  }
  const foreign = entries.filter((e) => e !== LOCK_FILE).sort();
  if (foreign.length === 0) return null;
  const shown = foreign.slice(0, ENTRIES_SHOWN).map((e) => `"${e}"`).join(", ");
  const more = foreign.length > ENTRIES_SHOWN ? ` and ${foreign.length - ENTRIES_SHOWN} more` : "";
  return `--out ${dir}: the folder is not empty and holds no ragbench run (${shown}${more}); ` +
    `a run would overwrite files there. Choose a new or empty folder.`;
}

/** Most suffixes {@link freeRunDir} tries before giving `base` back. */
const MAX_SUFFIX = 1000;

/**
 * The default run folder `base`, or `base-2`, `base-3`, ... when it is
 * taken: two runs started in the same second must not share a folder.
 */
export function freeRunDir(base: string, taken: (path: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; n <= MAX_SUFFIX; n++) {
    if (!taken(`${base}-${n}`)) return `${base}-${n}`;
  }
  return base;
}

/** The file-system calls {@link readDirState} makes (tests stand in for them). */
export interface DirStateFs {
  stat(path: string): Promise<Deno.FileInfo>;
  lstat(path: string): Promise<Deno.FileInfo>;
}

const DENO_FS: DirStateFs = { stat: Deno.stat, lstat: Deno.lstat };

/** Reads what stands at `dir`. */
export async function readDirState(dir: string, fs: DirStateFs = DENO_FS): Promise<DirState> {
  let info: Deno.FileInfo;
  try {
    info = await fs.stat(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      const link = await fs.lstat(dir).catch(() => null);
      if (link === null) return { kind: "missing" };
      // A link to nothing: mkdir would fail on it with "File exists".
      if (link.isSymlink) return { kind: "other" };
      // Not there a moment ago, there now: another run has just made the folder. Read it again.
      info = link;
    } else if (error instanceof Deno.errors.NotADirectory) {
      // `results.txt/sub`: a part of the path is a file. Name it rather than print the OS error.
      // Which part is not known when the parents cannot be read (a least-privilege --allow-read).
      return { kind: "under_file", file: await fileAbove(dir, fs) };
    } else {
      throw new RagbenchError("io", `Cannot read "${dir}": ${describeFsError(error)}.`, {
        cause: error,
      });
    }
  }
  if (info.isFile) return { kind: "file" };
  if (!info.isDirectory) return { kind: "other" };
  const entries: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry.name);
  } catch (error) {
    throw new RagbenchError("io", `Cannot list "${dir}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  return { kind: "folder", entries };
}

/** The nearest folder above `dir` that is a regular file, or null (the path changed meanwhile). */
async function fileAbove(dir: string, fs: DirStateFs): Promise<string | null> {
  let path = dir;
  // Each step drops one path component, so the walk ends at the root at the latest.
  for (let parent = dirname(path); parent !== path; path = parent, parent = dirname(path)) {
    const info = await fs.stat(parent).catch(() => null);
    if (info?.isFile) return parent;
  }
  return null;
}

/**
 * Throws when the run cannot write into `dir` (see {@link runDirProblem}).
 *
 * @throws {UsageError} naming what is in the way.
 */
export async function checkRunDir(
  dir: string,
  options: { resume: boolean; resumeCommand?: string },
): Promise<void> {
  const problem = runDirProblem(dir, await readDirState(dir), options);
  if (problem) throw new UsageError(problem);
  if (options.resume) {
    const results = join(dir, RUN_FILES.results);
    const info = await Deno.stat(results).catch(() => null);
    if (info && !info.isFile) {
      throw new UsageError(`--resume ${dir}: ${RUN_FILES.results} there is not a file.`);
    }
  }
}
