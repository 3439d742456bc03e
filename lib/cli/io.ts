/**
 * How commands talk to the terminal: results on stdout, progress and
 * messages on stderr, and the signal that Ctrl-C aborts. Injected, so
 * commands are testable and library code never prints.
 *
 * @module
 */

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
}
