/**
 * The refusal of a call a custom system made, which the system should hear
 * (an unknown tool for the model, no retriever, a limit reached, a failed
 * retrieval): its call rejects with the message and the question goes on.
 * A file of its own, so that the system type (in every run's start-up graph)
 * does not import the process code of `system_host.ts`.
 *
 * @module
 */

/** A call refused on purpose; its message is what the system's call rejects with. */
export class AskRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AskRefused";
  }
}
