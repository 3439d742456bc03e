/**
 * What ragbench prints for an error that reached the top (main.ts, and the
 * launcher ragbench.ts for the errors it meets before ragbench starts), and
 * the exit code: a user-facing error's message (its stack with `--debug`),
 * or the internal-error text of a bug.
 *
 * @module
 */

import { exitCodeFor, RagbenchError } from "../errors.ts";
import { UNSTABLE_FLAGS } from "../plan/permissions.ts";

/** The text to print on stderr for `error` and the code to exit with. */
export function failureText(error: unknown, debug: boolean): { text: string; code: number } {
  if (error instanceof RagbenchError) {
    return { text: debug ? error.stack ?? error.message : error.message, code: exitCodeFor(error) };
  }
  if (isMissingUnstableFlag(error)) {
    // `deno run main.ts` without the unstable flags: ragbench's modules load WebAssembly as bytes.
    return {
      text: `ragbench was started without Deno's ${
        UNSTABLE_FLAGS.join(" ")
      } flags, which it needs (${String(error)}). Start it with ${
        UNSTABLE_FLAGS.join(" ")
      } after "deno run", or through "deno task ragbench", which adds them.`,
      code: 2,
    };
  }
  return {
    text: `ragbench hit an internal error (a bug; please report it): ${
      debug ? (error as Error)?.stack : String(error)
    }${debug ? "" : "\nRun again with --debug for the stack trace."}`,
    code: 1,
  };
}

/** The error Deno throws when a module is imported as bytes without --unstable-raw-imports. */
function isMissingUnstableFlag(error: unknown): boolean {
  return error instanceof TypeError &&
    /"(bytes|text)" is not a valid module type/.test(error.message);
}
