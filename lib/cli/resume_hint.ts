/**
 * How to continue an unfinished run: the exact `ragbench run ... --resume
 * DIR` command, in the form ragbench was started with (`invocation.ts`),
 * and the message for a results write that failed (disk full,
 * permissions), which keeps what finished and says how to go on.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import type { Need } from "../plan/need.ts";
import { commandLine, DEFAULT_INVOCATION, type Invocation } from "./invocation.ts";

/** What the resume command repeats of this command line. */
export interface ResumeArgs {
  configPath: string;
  dir: string;
  mock: boolean;
  /** `--systems` as given, if any. */
  systems?: string;
  /** `--limit` as given, if any. */
  limit?: string;
  /** `--shard` as given, if any. */
  shard?: string;
  /** `--cache`, `--cache-tools`, `--cache-dir` as given (name without dashes, value). */
  cache?: ReadonlyArray<[string, string]>;
  /** `--junit` as given, if any. */
  junit?: string;
}

/**
 * `ragbench run CONFIG --resume DIR [--mock] [--systems A,B] [--limit N] [--junit FILE] [--cache-dir DIR]`,
 * started as this ragbench was (`how.invocation`; under `deno run`, with
 * the flags `how.needs` gives: what the resumed run needs).
 */
export function resumeCommand(
  args: ResumeArgs,
  how: { invocation?: Invocation; needs?: () => readonly Need[] } = {},
): string {
  const words = ["run", args.configPath, "--resume", args.dir];
  if (args.mock) words.push("--mock");
  if (args.systems !== undefined) words.push("--systems", args.systems);
  if (args.limit !== undefined) words.push("--limit", args.limit);
  if (args.shard !== undefined) words.push("--shard", args.shard);
  if (args.junit !== undefined) words.push("--junit", args.junit);
  for (const [name, value] of args.cache ?? []) words.push(`--${name}`, value);
  const invocation = how.invocation ?? DEFAULT_INVOCATION;
  return commandLine(invocation, words, {
    unstable: true,
    ...(invocation.kind === "deno_run" && how.needs ? { needs: how.needs() } : {}),
  });
}

/**
 * A failed write of the run's files, with what was kept and how to go on.
 * Errors other than a user-facing "io" one are returned unchanged (a bug
 * stays a bug).
 */
export function writeFailure(
  error: unknown,
  options: { results: string; resume: string },
): unknown {
  if (!(error instanceof RagbenchError) || error.code !== "io") return error;
  return new RagbenchError(
    "io",
    `${error.message}\nThe results finished before it are kept in "${options.results}". ` +
      `Make room (or fix the permission), then continue with:\n  ${options.resume}`,
    { cause: error },
  );
}
