/**
 * Every child process ragbench starts (code-agent sandboxes, custom-tool
 * processes, MCP command servers) is started, tracked and stopped here:
 *
 * - **In a session of its own.** A terminal's Ctrl-C (and `timeout -s INT`,
 *   a closed terminal's SIGHUP, a `kill -- -PGID`) signals the whole
 *   foreground process group. A child that stays in ragbench's group
 *   receives it too and dies in the middle of a question, which then records
 *   a failure that has nothing to do with the system under test. Started
 *   with `detached: true`, Deno calls `setsid()` in the child (checked on
 *   Linux: the child's pid, process group and session id are equal), so the
 *   terminal's signals reach ragbench alone, and ragbench decides what
 *   happens to its children. No wrapper program (`setsid(1)`) and no FFI are
 *   needed. Windows has neither sessions nor process groups of this kind:
 *   there children are started as before.
 * - **Stopped with its group, when asked.** The child leads its own process
 *   group, so whatever it starts (a wrapper shell's real server, `npx`'s
 *   node) shares that group unless it leaves it, and `kill(-pgid)` reaches
 *   all of them. A child spawned with `group: true` is killed with its whole
 *   group, and when it exits, what is left of its group is killed too (it is
 *   of no use without it, and may hold its pipes open). Deno allows
 *   signalling a process id other than a child's own handle only with
 *   `--allow-run` for every program; without it only the child is signalled.
 * - **Killed when ragbench exits.** One `unload` listener kills every child
 *   still running when ragbench exits without closing what it started (a
 *   second Ctrl-C exits at once). When ragbench dies without running it
 *   (SIGKILL), each child's stdin closes, and the sandbox processes end
 *   themselves on that (an MCP server only if it stops at end of input).
 * - **Its exit recorded.** An exit ragbench did not ask for (it did not kill
 *   or stop the child) is counted for the whole process; the runner reads
 *   the count through `lib/run/child_exits.ts`.
 *
 * @module
 */

/** Whether children are started in a session (and process group) of their own. */
export const OWN_SESSION: boolean = Deno.build.os !== "windows";

/** Whether Deno lets this process signal other process ids (`--allow-run` for every program). */
export function canSignalGroups(): boolean {
  if (!OWN_SESSION) return false;
  // querySync never prompts; Deno.kill would ask on a terminal without --no-prompt.
  return Deno.permissions.querySync({ name: "run" }).state === "granted";
}

/**
 * How to start a child: its arguments, directory and environment (the only
 * variables it gets: a child never inherits ragbench's). Its stdin, stdout
 * and stderr are always piped.
 */
export interface SpawnOptions {
  args: readonly string[];
  cwd?: string;
  env: Readonly<Record<string, string>>;
  /**
   * Whether stopping the child stops its whole process group (what it
   * started too), and its exit ends what is left of the group.
   */
  group?: boolean;
  /**
   * Asked once the child has exited: whether it ended itself on ragbench's
   * behalf (its own watchdog enforcing a limit ragbench set, which says so on
   * stderr before it kills its process). Such an exit is ragbench's, not an
   * unasked one: the watchdog's kill can land before ragbench's own kill, and
   * a question must not be taken for cut by a signal because of that order. A
   * program can fake it only to have its question kept, never discarded.
   */
  endedByItsLimits?: () => Promise<boolean>;
}

/** A child process started through {@link spawnTracked}, tracked until it exits. */
export interface TrackedChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** How its process ended (`signal` is set when it was killed). */
  readonly status: Promise<Deno.CommandStatus>;
  /** Settles (never rejects) once it exited and the registry recorded it. */
  readonly exited: Promise<void>;
  /** False once its exit was recorded. */
  readonly running: boolean;
  /** True once ragbench asked it to end ({@link stop} or {@link kill}): its exit is then not counted. */
  readonly stopping: boolean;
  /** Records that ragbench is ending it (closing its stdin, say): its exit is not an unasked one. */
  stop(): void;
  /** {@link stop}s it and sends SIGKILL, to its whole group when spawned with `group`. Never throws. */
  kill(): void;
}

/** Where a tracked child stands. */
type ChildState =
  | { s: "running" }
  /** ragbench asked it to end; it has not exited yet. */
  | { s: "stopping" }
  | { s: "exited"; asked: boolean };

/** Every child still running. */
const LIVE = new Set<TrackedChild>();
let listening = false;
/** How many children ended without ragbench asking (only ever grows). */
let unasked = 0;

/**
 * Starts `program` in a session of its own, with piped stdin, stdout and
 * stderr, and tracks it until it exits.
 *
 * @throws {Deno.errors.NotFound} or {Deno.errors.NotCapable} (as
 *   `Deno.Command.spawn` does) when the program cannot be started.
 */
export function spawnTracked(program: string, options: SpawnOptions): TrackedChild {
  const process = new Deno.Command(program, {
    args: [...options.args],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    clearEnv: true,
    env: { ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    ...(OWN_SESSION ? { detached: true } : {}),
  }).spawn();
  const group = options.group === true;
  let state: ChildState = { s: "running" };
  const signalIt = () => group ? signalTree(process, "SIGKILL") : signalChild(process, "SIGKILL");
  const recordExit = (counted: boolean, asked = state.s === "stopping") => {
    state = { s: "exited", asked };
    LIVE.delete(child);
    if (counted) noteChildExit(asked);
    // What it started is of no use without it, and may hold its pipes open.
    if (group) signalTree(process, "SIGKILL");
  };
  const child: TrackedChild = {
    pid: process.pid,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    status: process.status,
    exited: process.status.then(async () => {
      // Whether ragbench asked is settled when the process ended: a stop() or kill() while its
      // limits are looked up (a question's clean-up killing what is already dead) is not asking.
      const asked = state.s === "stopping";
      const own = await options.endedByItsLimits?.().catch(() => false);
      recordExit(true, asked || own === true);
    }, () => recordExit(false)),
    get running() {
      return state.s !== "exited";
    },
    get stopping() {
      return state.s === "stopping" || (state.s === "exited" && state.asked);
    },
    stop() {
      if (state.s === "running") state = { s: "stopping" };
    },
    kill() {
      child.stop();
      signalIt();
    },
  };
  LIVE.add(child);
  if (!listening) {
    listening = true;
    globalThis.addEventListener("unload", killAll);
  }
  return child;
}

/** Kills every child still running (ragbench is exiting). */
function killAll(): void {
  for (const child of LIVE) child.kill();
}

/**
 * Records that a child ended; `stoppedByUs`: ragbench killed it or closed it
 * (such an exit is never counted). The registry calls it for every tracked
 * child; exported for tests that stand in for a child's exit.
 */
export function noteChildExit(stoppedByUs: boolean): void {
  if (!stoppedByUs) unasked++;
}

/** How many children have ended without ragbench asking, since this process started. */
export function unaskedExits(): number {
  return unasked;
}

/**
 * Sends `signal` to `child`'s process group (the child and what it
 * started), or to the child alone when the group cannot be signalled (see
 * {@link canSignalGroups}). Never throws: a group or child already gone is
 * not an error. Returns true when the group was signalled.
 */
function signalTree(child: Deno.ChildProcess, signal: Deno.Signal): boolean {
  if (canSignalGroups()) {
    try {
      Deno.kill(-child.pid, signal);
      return true;
    } catch {
      // ESRCH: every process of the group has exited.
    }
  }
  signalChild(child, signal);
  return false;
}

function signalChild(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch { /* already gone */ }
}
