/**
 * The runner's rule for questions a signal may have cut. The child-process
 * registry (`lib/util/child_registry.ts`) counts, for the whole process, the
 * exits of ragbench's children (code-agent sandboxes, custom-tool processes,
 * MCP servers) that ragbench did not ask for. The runner takes a mark before
 * each question and compares it after: once the run has been cancelled (a
 * Ctrl-C reached ragbench), a question during which one of its children
 * ended unasked is not recorded (see `runner.ts`), so `--resume` runs it
 * again instead of keeping a failure the system under test may never have
 * caused.
 *
 * Why only once the run is cancelled: children run in a session of their
 * own, so a terminal's Ctrl-C no longer reaches them, but the signals that
 * still can (`pkill deno`, a service manager stopping every process, a
 * platform without sessions) reach ragbench too, which cancels the run.
 * While ragbench itself got no signal, a child that dies is the system's own
 * result: a program can signal its own process without any permission
 * (`Deno.kill(Deno.pid, "SIGINT")` works in the code agent's sandbox), and it
 * must not be able to keep its question out of the results that way.
 *
 * @module
 */

import { unaskedExits } from "../util/child_registry.ts";

/** The count of unasked exits now, to compare with {@link interruptedSince} later. */
export function childExitMark(): number {
  return unaskedExits();
}

/**
 * Whether the question that started at `mark` may have been cut by a
 * signal: the run was `cancelled` and a child ended unasked since.
 */
export function interruptedSince(mark: number, cancelled: boolean): boolean {
  return cancelled && unaskedExits() !== mark;
}
