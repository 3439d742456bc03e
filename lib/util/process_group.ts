/**
 * Child processes in a session of their own, and stopping a child together
 * with every process it started.
 *
 * A terminal's Ctrl-C (and `timeout -s INT`, a closed terminal's SIGHUP, a
 * `kill -- -PGID`) signals the whole foreground process group. A child that
 * stays in ragbench's group receives it too and dies in the middle of a
 * question, which then records a failure that has nothing to do with the
 * system under test. Started with `detached: true`, Deno calls `setsid()` in
 * the child (checked on Linux: the child's pid, process group and session id
 * are equal), so the terminal's signals reach ragbench alone, and ragbench
 * decides what happens to its children. No wrapper program (`setsid(1)`) and
 * no FFI are needed.
 *
 * The child leads its own process group, so whatever it starts (a wrapper
 * shell's real server, `npx`'s node) shares that group unless it leaves it,
 * and `kill(-pgid)` reaches all of them. Deno allows signalling a process id
 * other than a child's own handle only with `--allow-run` for every program;
 * {@link signalTree} falls back to the child alone without it.
 *
 * Windows has neither sessions nor process groups of this kind: there
 * children are started as before.
 *
 * @module
 */

/** Whether children are started in a session (and process group) of their own. */
export const OWN_SESSION: boolean = Deno.build.os !== "windows";

/** The `Deno.Command` option that starts a child in a session of its own, where supported. */
export function ownSession(): { detached?: true } {
  return OWN_SESSION ? { detached: true } : {};
}

/** Whether Deno lets this process signal other process ids (`--allow-run` for every program). */
export function canSignalGroups(): boolean {
  if (!OWN_SESSION) return false;
  // querySync never prompts; Deno.kill would ask on a terminal without --no-prompt.
  return Deno.permissions.querySync({ name: "run" }).state === "granted";
}

/**
 * Sends `signal` to `child`'s process group (the child and what it started),
 * or to the child alone when the group cannot be signalled (see
 * {@link canSignalGroups}). Never throws: a group or child already gone is
 * not an error. Returns true when the group was signalled.
 */
export function signalTree(child: Deno.ChildProcess, signal: Deno.Signal): boolean {
  if (canSignalGroups()) {
    try {
      Deno.kill(-child.pid, signal);
      return true;
    } catch {
      // ESRCH: every process of the group has exited.
    }
  }
  try {
    child.kill(signal);
  } catch { /* already gone */ }
  return false;
}
