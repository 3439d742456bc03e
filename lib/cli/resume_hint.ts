/**
 * How to continue an unfinished run: the exact `ragbench run ... --resume
 * DIR` command, and the message for a results write that failed (disk full,
 * permissions), which keeps what finished and says how to go on.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import { shellQuote } from "../run/run_lock.ts";

/** What the resume command repeats of this command line. */
export interface ResumeArgs {
  configPath: string;
  dir: string;
  mock: boolean;
  /** `--systems` as given, if any. */
  systems?: string;
  /** `--limit` as given, if any. */
  limit?: string;
  /** `--cache`, `--cache-tools`, `--cache-dir` as given (name without dashes, value). */
  cache?: ReadonlyArray<[string, string]>;
}

/** `ragbench run CONFIG --resume DIR [--mock] [--systems A,B] [--limit N] [--cache-dir DIR]` */
export function resumeCommand(args: ResumeArgs): string {
  const parts = ["ragbench", "run", shellQuote(args.configPath), "--resume", shellQuote(args.dir)];
  if (args.mock) parts.push("--mock");
  if (args.systems !== undefined) parts.push("--systems", shellQuote(args.systems));
  if (args.limit !== undefined) parts.push("--limit", shellQuote(args.limit));
  for (const [name, value] of args.cache ?? []) parts.push(`--${name}`, shellQuote(value));
  return parts.join(" ");
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
