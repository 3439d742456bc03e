/**
 * How this ragbench was started, so that every command it prints (the resume
 * command, the permissions hint, "See ... --help", the first command in
 * `--help`) works when pasted as printed:
 *
 * - `launcher`: through `ragbench.ts`, which computes the permission flags
 *   itself: `deno task ragbench ...`, or the command `deno install -g`
 *   made (`ragbench ...`). The launcher names itself to main.ts with a
 *   hidden first argument ({@link LAUNCHED_AS}).
 * - `compiled`: a binary built with `deno compile` (fixed permissions): the
 *   binary's own path.
 * - `deno_run`: `deno run FLAGS main.ts ...` with explicit flags (locked-down
 *   CI): a printed command carries the flags it needs, computed as
 *   `ragbench permissions` computes them.
 *
 * @module
 */

import { isAbsolute, relativePath, resolvePath } from "../util/paths.ts";
import { shellQuote } from "../run/run_lock.ts";
import type { Need } from "../plan/need.ts";
import { permissionFlags, UNSTABLE_FLAGS } from "../plan/permissions.ts";

/** The hidden first argument the launcher starts main.ts with, followed by the launcher's name. */
export const LAUNCHED_AS = "__launched-as";

/** How ragbench was started. */
export interface Invocation {
  kind: "launcher" | "compiled" | "deno_run";
  /**
   * The words that start ragbench before the command: `deno task ragbench`,
   * `ragbench`, `./dist/ragbench`, or `deno run main.ts` (for `deno_run`,
   * the permission flags go after `deno run`).
   */
  program: string;
  /** Under `deno_run`: main.ts as it is named on the command line (shell-quoted). */
  entry?: string;
}

/** What in-process callers (tests) get when nobody says how ragbench was started. */
export const DEFAULT_INVOCATION: Invocation = { kind: "launcher", program: "ragbench" };

/**
 * Reads how main.ts was started: the launcher's hidden first argument (removed
 * from the returned argv), else a compiled binary, else `deno run`.
 */
export function readInvocation(
  argv: readonly string[],
  where: { mainModule: string; standalone: boolean; execPath: string; cwd: string },
): { invocation: Invocation; argv: string[] } {
  if (argv[0] === LAUNCHED_AS && argv.length >= 2 && argv[1].trim() !== "") {
    return { invocation: { kind: "launcher", program: argv[1] }, argv: argv.slice(2) };
  }
  if (where.standalone) {
    return {
      invocation: { kind: "compiled", program: shellQuote(shownPath(where.execPath, where.cwd)) },
      argv: [...argv],
    };
  }
  const entry = shellQuote(shownPath(where.mainModule, where.cwd));
  return { invocation: { kind: "deno_run", program: `deno run ${entry}`, entry }, argv: [...argv] };
}

/**
 * The command line that runs ragbench with `words` (each shell-quoted) the
 * way it was started. Under `deno run`, `needs` become the permission flags
 * (with the unstable flags when `unstable`), so the line works as printed.
 */
export function commandLine(
  invocation: Invocation,
  words: readonly string[],
  options: { needs?: readonly Need[]; unstable?: boolean; cwd?: string } = {},
): string {
  const quoted = words.map(shellQuote);
  if (invocation.kind !== "deno_run") return [invocation.program, ...quoted].join(" ");
  const flags = [
    ...(options.unstable ? UNSTABLE_FLAGS : []),
    ...permissionFlags(options.needs ?? [], options.cwd ?? Deno.cwd()),
  ].map(shellQuote);
  return ["deno", "run", ...flags, invocation.entry ?? "main.ts", ...quoted].join(" ");
}

/** `path` relative to `cwd` when it lies inside it, else absolute. */
export function shownPath(path: string, cwd: string): string {
  const absolute = isAbsolute(path) ? path : resolvePath(cwd, path);
  const rel = relativePath(cwd, absolute);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? absolute : rel;
}
