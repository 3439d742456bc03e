/**
 * What ragbench prints for an error that reached the top (main.ts, and the
 * launcher ragbench.ts for the errors it meets before ragbench starts), and
 * the exit code: a user-facing error's message (its stack with `--debug`),
 * or the internal-error text of a bug.
 *
 * @module
 */

import { exitCodeFor, RagbenchError } from "../errors.ts";

/** The text to print on stderr for `error` and the code to exit with. */
export function failureText(error: unknown, debug: boolean): { text: string; code: number } {
  if (error instanceof RagbenchError) {
    return { text: debug ? error.stack ?? error.message : error.message, code: exitCodeFor(error) };
  }
  return {
    text: `ragbench hit an internal error (a bug; please report it): ${
      debug ? (error as Error)?.stack : String(error)
    }${debug ? "" : "\nRun again with --debug for the stack trace."}`,
    code: 1,
  };
}
