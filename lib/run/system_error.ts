/**
 * The error a system throws when the code it runs failed in a way that is the
 * system's own result, not a ragbench bug: an agent framework threw, returned
 * no answer, broke its process's protocol or its process died. The runner
 * records it as the question's error of kind `system` and the run goes on.
 *
 * @module
 */

/** A system's own failure (see the module doc). `message` says what failed and is recorded. */
export class SystemFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SystemFailedError";
  }
}
