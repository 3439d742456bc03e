/**
 * How commands talk to the terminal: results on stdout, progress and
 * messages on stderr, the signal that Ctrl-C aborts, and what to do on a
 * hard quit. Injected, so commands are testable and library code never
 * prints.
 *
 * @module
 */

import type { Invocation } from "./invocation.ts";

/** Output channels and cancellation of one command. */
export interface CliIO {
  /** A result line (stdout). */
  out(text: string): void;
  /** A progress or status line (stderr). */
  progress(text: string): void;
  /**
   * Redraws the one live progress line in place (stderr, no newline); absent
   * when stderr is not a terminal, where progress is printed as lines.
   */
  redraw?(text: string): void;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
  /**
   * Registers work to do if the process quits at once (a second Ctrl-C,
   * SIGTERM, SIGHUP): print the resume hint, close tool processes, release
   * the run directory. Hooks run newest first, bounded in time; the returned
   * function unregisters. Absent where nothing quits early (in-process tests).
   */
  onQuit?(hook: QuitHook): () => void;
  /**
   * How ragbench was started, so that the commands it prints (resume,
   * permissions) work as printed; absent in-process (tests): `ragbench`.
   */
  invocation?: Invocation;
}

/** Work to do before a hard quit; gets the reason, e.g. "SIGTERM". */
export type QuitHook = (reason: string) => void | Promise<void>;
