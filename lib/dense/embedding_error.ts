/**
 * The error of a failed embedding request, apart from the messages in
 * `embedding_errors.ts` (which need `npm:openai`), so the vector retriever
 * can catch it without loading the SDK.
 *
 * @module
 */

import { ModelCallError } from "../llm/model.ts";

/**
 * An embedding request that failed. It is a {@link ModelCallError}, so a
 * failure while embedding a question's query becomes that question's
 * `model` error in the results, and the run goes on.
 */
export class EmbeddingError extends ModelCallError {
  /** Whether a retry may help (429, 5xx, connection errors, timeouts). */
  readonly retryable: boolean;
  /** Wait the server asked for (Retry-After), in ms; null when none. */
  readonly retryAfterMs: number | null;

  constructor(
    message: string,
    options: { cause?: unknown; retryable?: boolean; retryAfterMs?: number | null } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "EmbeddingError";
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}
