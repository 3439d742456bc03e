/**
 * Exits of the child processes ragbench starts (code-agent sandboxes,
 * custom-tool processes, MCP servers) that ragbench did not ask for, counted
 * for the whole process. The runner compares the counts before and after
 * each question: a question during which something outside ragbench stopped
 * one of its children is not recorded (see `runner.ts`), so `--resume` runs
 * it again instead of keeping a failure the system under test never caused.
 *
 * Two kinds are counted:
 * - **stopped by a signal**: the child died of SIGINT, SIGTERM, SIGHUP or
 *   SIGQUIT that ragbench did not send (ragbench stops children with
 *   SIGKILL, or by closing their input). Children run in a session of their
 *   own (`lib/util/process_group.ts`), so a terminal's Ctrl-C no longer
 *   reaches them; this catches the signals that still do (`pkill`, a
 *   service manager stopping every process, a platform without sessions).
 * - **ended unasked**: any other exit ragbench did not cause (a crash, a
 *   server that exits on SIGINT with a code of its own). Such an exit is an
 *   ordinary result of the system under test, except once the run has been
 *   cancelled: then a signal may well be its cause, and the question is not
 *   kept either.
 *
 * @module
 */

/** Signals that ask a process to stop; ragbench never sends them to its children. */
const STOP_SIGNALS: ReadonlySet<string> = new Set(["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]);

/** How many children ended each way so far (only ever grows). */
export interface ChildExitCounts {
  /** Died of a stop signal ragbench did not send. */
  signalled: number;
  /** Ended in any other way ragbench did not cause. */
  unasked: number;
}

const counts: ChildExitCounts = { signalled: 0, unasked: 0 };

/**
 * Records how a child ended. `stoppedByUs`: ragbench killed it or closed it
 * (such an exit is never counted).
 */
export function noteChildExit(status: Deno.CommandStatus, stoppedByUs: boolean): void {
  if (stoppedByUs) return;
  if (status.signal !== null && STOP_SIGNALS.has(status.signal)) counts.signalled++;
  else counts.unasked++;
}

/** The counts now, to compare with {@link interruptedSince} later. */
export function childExitMark(): ChildExitCounts {
  return { ...counts };
}

/**
 * Whether a child ended since `mark` in a way that may have come from a
 * signal: stopped by one, or (once the run is `cancelled`) ended unasked.
 */
export function interruptedSince(mark: ChildExitCounts, cancelled: boolean): boolean {
  if (counts.signalled !== mark.signalled) return true;
  return cancelled && counts.unasked !== mark.unasked;
}
