/**
 * What `ragbench run` was asked to do, read from its arguments before
 * anything is loaded: the config, where the run goes (`--out`, `--resume`,
 * or a new folder under `runs/`), the selection (`--mock`, `--systems`,
 * `--limit`), concurrency, progress mode, `--dry-run`, `--force`, `--junit`;
 * the command that resumes the run; and what the run prints under each
 * progress mode (`--quiet` prints only errors: {@link runIO}). Usage errors
 * are thrown here, so they come before any file is read (the cache options
 * are read once the config is loaded: `run_prepare.ts`).
 *
 * @module
 */

import type { Config } from "../config/types.ts";
import { UsageError } from "../errors.ts";
import type { RunSelection } from "../plan/setup.ts";
import { freeRunDir } from "../run/run_dir.ts";
import { join } from "../util/paths.ts";
import { intOption, type ParsedArgs } from "./args.ts";
import type { Invocation } from "./invocation.ts";
import type { CliIO } from "./io.ts";
import type { ProgressMode } from "./progress.ts";
import { resumeCommand } from "./resume_hint.ts";
import { runArgsNeeds, systemsOption } from "./run_needs.ts";
import { shardOption } from "./run_shard.ts";
import type { ShardSpec } from "../run/shard.ts";

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
  /** `--shard I/N`, when given (lib/run/shard.ts). */
  shard: ShardSpec | undefined;
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
    shard: shardOption(args),
  };
}

/** The run's folder: `--resume`, `--out`, or a new `runs/<name>-<UTC time>`. */
export function runDirOf(request: RunRequest, configName: string): string {
  return request.resume ?? request.out ?? freeRunDirName(configName);
}

/**
 * The command that resumes the run in `dir`, with the options this one was
 * given, started as this ragbench was (under `deno run`, with the flags the
 * resumed run needs).
 */
export function resumeHintOf(
  args: ParsedArgs,
  request: RunRequest,
  ctx: { dir: string; config: Config; invocation: Invocation },
): string {
  return resumeCommand({
    configPath: request.configPath,
    dir: ctx.dir,
    mock: request.mock,
    systems: args.options.get("systems"),
    limit: args.options.get("limit"),
    shard: args.options.get("shard"),
    junit: request.junit,
    cache: ["cache", "cache-tools", "cache-dir"].flatMap((name): Array<[string, string]> => {
      const value = args.options.get(name);
      return value === undefined ? [] : [[name, value]];
    }),
  }, {
    invocation: ctx.invocation,
    needs: () => runArgsNeeds(ctx.config, resumedArgs(args, ctx.dir)),
  });
}

/** The options of the command that continues this run in `dir`: `--resume dir`, no `--out`. */
function resumedArgs(args: ParsedArgs, dir: string): ParsedArgs {
  const options = new Map(args.options);
  options.delete("out");
  options.delete("dry-run");
  options.set("resume", dir);
  return { positionals: args.positionals, options };
}

/** The run's output under its progress mode, and the way its errors are always printed. */
export interface RunIO extends CliIO {
  /** Prints a line explaining a run that failed or stopped (to stderr, even under `--quiet`). */
  alert(text: string): void;
  /** Prints a line naming a failed system (to stdout, even under `--quiet`). */
  alertOut(text: string): void;
}

/**
 * `io` for a run in `mode`: under `--quiet` nothing is printed but errors
 * (thrown ones, which main.ts prints, and {@link RunIO.alert}s).
 */
export function runIO(io: CliIO, mode: ProgressMode): RunIO {
  const alert = io.progress;
  const alertOut = io.out;
  if (mode !== "quiet") return { ...io, alert, alertOut };
  const { redraw: _, ...rest } = io;
  return { ...rest, out: () => {}, progress: () => {}, alert, alertOut };
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
