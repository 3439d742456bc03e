/**
 * What `ragbench run` was asked to do, read from its arguments before
 * anything is loaded: the config, where the run goes (`--out`, `--resume`,
 * or a new folder under `runs/`), the selection (`--mock`, `--systems`,
 * `--limit`), concurrency, progress mode, `--dry-run`, `--force`, `--junit`,
 * and the command that resumes the run. Usage errors are thrown here, so
 * they come before any file is read (the cache options are read once the
 * config is loaded, as before this module existed: `run_prepare.ts`).
 *
 * @module
 */

import { UsageError } from "../errors.ts";
import type { RunSelection } from "../plan/setup.ts";
import { freeRunDir } from "../run/run_dir.ts";
import { join } from "../util/paths.ts";
import { intOption, type ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import type { ProgressMode } from "./progress.ts";
import { resumeCommand } from "./resume_hint.ts";

/** One `ragbench run` invocation, its arguments checked. */
export interface RunRequest {
  configPath: string;
  mock: boolean;
  /** `--resume DIR`, when given. */
  resume: string | undefined;
  /** `--out DIR`, when given. */
  out: string | undefined;
  selection: RunSelection;
  /** `--concurrency`, when given (else the config's). */
  concurrency: number | undefined;
  progress: ProgressMode;
  dryRun: boolean;
  force: boolean;
  /** `--junit FILE`, when given. */
  junit: string | undefined;
}

/**
 * Reads the run's arguments.
 *
 * @throws {UsageError} for conflicting or empty options.
 */
export function readRunRequest(args: ParsedArgs, io: Pick<CliIO, "redraw">): RunRequest {
  const resume = dirOption(args, "resume");
  const out = dirOption(args, "out");
  if (resume !== undefined && out !== undefined) {
    throw new UsageError("Give either --out or --resume, not both (--resume DIR writes into DIR).");
  }
  const mock = args.options.has("mock");
  const systems = systemsOption(args);
  const limit = intOption(args, "limit", { min: 1, max: 1_000_000 });
  return {
    configPath: args.positionals[0],
    mock,
    resume,
    out,
    selection: {
      mock,
      ...(systems === undefined ? {} : { systems }),
      ...(limit === undefined ? {} : { limit }),
    },
    concurrency: intOption(args, "concurrency", { min: 1, max: 64 }),
    progress: progressMode(args, io),
    dryRun: args.options.has("dry-run"),
    force: args.options.has("force"),
    junit: args.options.get("junit"),
  };
}

/** The run's folder: `--resume`, `--out`, or a new `runs/<name>-<UTC time>`. */
export function runDirOf(request: RunRequest, configName: string): string {
  return request.resume ?? request.out ?? freeRunDirName(configName);
}

/** Where the run writes, for its permissions: the folder given, else `runs`. */
export function runDirRoot(request: RunRequest): string {
  return request.resume ?? request.out ?? "runs";
}

/** The command that resumes the run in `dir`, with the options this one was given. */
export function resumeHintOf(args: ParsedArgs, request: RunRequest, dir: string): string {
  return resumeCommand({
    configPath: request.configPath,
    dir,
    mock: request.mock,
    systems: args.options.get("systems"),
    limit: args.options.get("limit"),
    cache: ["cache", "cache-tools", "cache-dir"].flatMap((name): Array<[string, string]> => {
      const value = args.options.get(name);
      return value === undefined ? [] : [[name, value]];
    }),
  });
}

/**
 * A folder option's value; an empty one is a usage error.
 *
 * @throws {UsageError} for `--out ""` (an unset variable in a script).
 */
function dirOption(args: ParsedArgs, name: "out" | "resume"): string | undefined {
  const value = args.options.get(name);
  if (value !== undefined && value.trim() === "") {
    throw new UsageError(`--${name} is empty; give it a folder: --${name} DIR.`);
  }
  return value;
}

/**
 * The `--systems` names; a list with no name in it is a usage error, not a
 * run of nothing (an unset CI variable must not make a passing gate).
 *
 * @throws {UsageError} when the option is given but names no system.
 */
function systemsOption(args: ParsedArgs): string[] | undefined {
  const raw = args.options.get("systems");
  if (raw === undefined) return undefined;
  const names = raw.split(",").map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) {
    throw new UsageError(
      `--systems names no system (got "${raw}"); list them by name, e.g. --systems a,b, or leave the option out to run every system.`,
    );
  }
  return names;
}

function progressMode(args: ParsedArgs, io: Pick<CliIO, "redraw">): ProgressMode {
  if (args.options.has("quiet") && args.options.has("verbose")) {
    throw new UsageError("Give either --quiet or --verbose, not both.");
  }
  if (args.options.has("quiet")) return "quiet";
  if (args.options.has("verbose")) return "verbose";
  return io.redraw ? "live" : "periodic";
}

/** `runs/<name>-<UTC time>`, or the first free variant of it. */
function freeRunDirName(name: string): string {
  const t = Temporal.Now.plainDateTimeISO("UTC");
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = `${t.year}${pad(t.month)}${pad(t.day)}-${pad(t.hour)}${pad(t.minute)}${
    pad(t.second)
  }`;
  return freeRunDir(join("runs", `${name}-${stamp}`), pathExists);
}

function pathExists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
