/**
 * Exits of the child processes ragbench starts (code-agent sandboxes,
 * custom-tool processes, MCP servers) that ragbench did not ask for, counted
 * for the whole process. The runner compares the count before and after
 * each question: once the run has been cancelled (a Ctrl-C reached
 * ragbench), a question during which one of its children ended unasked is
 * not recorded (see `runner.ts`), so `--resume` runs it again instead of
 * keeping a failure the system under test may never have caused.
 *
 * Why only once the run is cancelled: children run in a session of their
 * own (`lib/util/process_group.ts`), so a terminal's Ctrl-C no longer reaches
 * them, but the signals that still can (`pkill deno`, a service manager
 * stopping every process, a platform without sessions) reach ragbench too,
 * which cancels the run. While ragbench itself got no signal, a child that
 * dies is the system's own result: a program can signal its own process
 * without any permission (`Deno.kill(Deno.pid, "SIGINT")` works in the
 * code agent's sandbox), and it must not be able to keep its question out
 * of the results that way.
 *
 * @module
 */

/** How many children ended without ragbench asking (only ever grows). */
let unasked = 0;

/**
 * Records that a child ended. `stoppedByUs`: ragbench killed it or closed it
 * (such an exit is never counted).
 */
export function noteChildExit(stoppedByUs: boolean): void {
  if (!stoppedByUs) unasked++;
}

/** The count now, to compare with {@link interruptedSince} later. */
export function childExitMark(): number {
  return unasked;
}

/**
 * Whether the question that started at `mark` may have been cut by a
 * signal: the run was `cancelled` and a child ended unasked since.
 */
export function interruptedSince(mark: number, cancelled: boolean): boolean {
  return cancelled && unasked !== mark;
}
