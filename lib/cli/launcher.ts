/**
 * The launcher behind `deno task ragbench` and the installed `ragbench`
 * command (entry point `ragbench.ts`): it works out the least permissions
 * the command line needs (command_needs.ts: for `run`, exactly what
 * `ragbench permissions` prints for the same options) and runs main.ts in a
 * child `deno run` with exactly those flags, stdio inherited.
 *
 * Signals: the child runs in a session of its own, so a terminal's Ctrl-C
 * reaches the launcher only, and the launcher passes each SIGINT, SIGTERM
 * and SIGHUP on; the child then stops (or quits) as it does when started
 * directly. `deno task` also passes the terminal's SIGINT on to the launcher,
 * so one Ctrl-C can arrive twice: a SIGINT within {@link SAME_PRESS_MS} of the
 * last one passed on is the same press and is not passed again. The launcher
 * exits with the child's code; if it is killed itself (SIGKILL), the child
 * sees its parent change and quits (main.ts, quit.ts `watchParent`).
 *
 * @module
 */

import { type CommandSpec, parseArgs } from "./args.ts";
import { LAUNCHED_AS } from "./invocation.ts";
import type { Need } from "../plan/need.ts";
import { permissionFlags, UNSTABLE_FLAGS } from "../plan/permissions.ts";
import { shellQuote } from "../run/run_lock.ts";

/** The launcher's own option: print the child's command line before starting it. */
export const SHOW_PERMISSIONS = "--show-permissions";

/** Two SIGINTs closer than this are one Ctrl-C (deno task passes on the one the launcher got too). */
export const SAME_PRESS_MS = 300;

/** How long a child may take to quit after a hard signal before it is killed. */
export const KILL_AFTER_MS = 10_000;

/** The child to start and what it was derived from. */
export interface LaunchPlan {
  /** `deno` arguments: `run --no-prompt <unstable flags> <permission flags> main.ts ...`. */
  args: string[];
  needs: Need[];
  /** `--show-permissions` or `--verbose` was given: print the command line first. */
  show: boolean;
}

/** Where the launcher runs from. */
export interface LaunchContext {
  /** How printed commands start ragbench (`deno task ragbench`, `ragbench`). */
  program: string;
  /** main.ts, as a path. */
  main: string;
  /** A command's declaration, undefined for a name that is none. */
  specOf(name: string): Promise<CommandSpec | undefined>;
  cwd: string;
}

/**
 * The child's command line for `argv` (the words after `ragbench`).
 * `--show-permissions` is the launcher's and is removed; anything that is not
 * a command it knows (`--help`, `--version`, a typo) gets no permission at
 * all, and main.ts answers it.
 *
 * @throws {UsageError} for bad options of a known command (as main.ts would say);
 *   the command's own load errors (an unreadable or invalid config).
 */
export async function planLaunch(
  argv: readonly string[],
  context: LaunchContext,
): Promise<LaunchPlan> {
  const end = argv.includes("--") ? argv.indexOf("--") : argv.length;
  const show = argv.slice(0, end).some((a) => a === SHOW_PERMISSIONS || a === "--verbose");
  const words = argv.filter((a, i) => i >= end || a !== SHOW_PERMISSIONS);
  const [name, ...rest] = words;
  const spec = name === undefined ? undefined : await context.specOf(name);
  // The config loader and the permission derivation load only for a command that has them to do.
  const needs = spec === undefined ? [] : await (await import("./command_needs.ts")).commandNeeds(
    name!,
    parseArgs(spec, rest, context.program),
  );
  return {
    args: [
      "run",
      "--no-prompt",
      ...UNSTABLE_FLAGS,
      ...permissionFlags(needs, context.cwd),
      context.main,
      LAUNCHED_AS,
      context.program,
      ...words,
    ],
    needs,
    show,
  };
}

/** The child's command line as a shell would take it (the hidden launcher words left out). */
export function shownCommand(execPath: string, plan: LaunchPlan): string {
  const at = plan.args.indexOf(LAUNCHED_AS);
  const args = [...plan.args.slice(0, at), ...plan.args.slice(at + 2)];
  return [execPath, ...args].map(shellQuote).join(" ");
}

/** What {@link superviseChild} needs of a child process. */
export interface ChildLike {
  readonly status: Promise<Deno.CommandStatus>;
  kill(signal?: Deno.Signal): void;
}

/** Signal listeners, injectable for tests. */
export interface SignalHub {
  listen(signal: Deno.Signal, handler: () => void): () => void;
}

/** The process's own signals. */
export const PROCESS_SIGNALS: SignalHub = {
  listen(signal, handler) {
    Deno.addSignalListener(signal, handler);
    return () => Deno.removeSignalListener(signal, handler);
  },
};

/**
 * Passes SIGINT, SIGTERM and SIGHUP on to `child` until it exits (see the
 * module docs for the repeated SIGINT), kills it if it outlives a hard signal
 * by {@link KILL_AFTER_MS}, and returns its exit code (128 + the signal
 * number when a signal ended it).
 */
export async function superviseChild(
  child: ChildLike,
  options: { signals?: SignalHub; now?: () => number; killAfterMs?: number } = {},
): Promise<number> {
  const hub = options.signals ?? PROCESS_SIGNALS;
  const now = options.now ?? (() => performance.now());
  let lastInt = -Infinity;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const pass = (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch {
      // It has just exited: its status says how.
    }
  };
  const unlisten = [
    hub.listen("SIGINT", () => {
      // Windows has no sessions: the console's Ctrl-C reaches the child itself.
      if (Deno.build.os === "windows") return;
      const t = now();
      if (t - lastInt < SAME_PRESS_MS) return;
      lastInt = t;
      pass("SIGINT");
    }),
    ...(Deno.build.os === "windows"
      ? []
      : (["SIGTERM", "SIGHUP"] as const).map((signal) =>
        hub.listen(signal, () => {
          pass(signal);
          killTimer ??= setTimeout(() => pass("SIGKILL"), options.killAfterMs ?? KILL_AFTER_MS);
        })
      )),
  ];
  try {
    const status = await child.status;
    return status.code;
  } finally {
    clearTimeout(killTimer);
    for (const stop of unlisten) stop();
  }
}
