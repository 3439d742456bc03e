/**
 * Failure messages of the OpenAI-compatible model (openai_model.ts): turns
 * what the `npm:openai` SDK throws (timeouts, refused connections, missing
 * network permission, HTTP error statuses, unreadable replies) into a
 * {@link ModelCallError} whose message names the host and says what to do.
 *
 * Every message is safe to write into a results file: the API key, bearer
 * tokens and `sk-...` strings are scrubbed from any server or system text
 * quoted, and the base URL is printed without user info, query or fragment.
 *
 * @module
 */

import OpenAI from "openai";
import { ModelCallError } from "./model.ts";
import { clip, safeUrl, scrub } from "./endpoint_text.ts";

export { clip, safeUrl, scrub };

/** What failure messages need to know about the model; holds the key only to scrub it. */
export interface FailureContext {
  /** Model id, `openai:<name>`. */
  id: string;
  /** Model name as the API knows it. */
  name: string;
  /** Base URL safe to print (no user info, query or fragment; see {@link safeUrl}). */
  site: string;
  /** The API key, removed from any text quoted in a message; null when none is sent. */
  apiKey: string | null;
  /** Time one HTTP attempt may take, in milliseconds. */
  timeoutMs: number;
  /** Retries the SDK makes after a transient failure. */
  maxRetries: number;
}

/**
 * Turns whatever the SDK threw during a chat call into a ModelCallError with
 * a safe, actionable message; the original error is its `cause`. `signal` is
 * the one given to the call: when it has fired, the failure is reported as a
 * cancellation whatever the SDK threw.
 */
export function describeFailure(
  error: unknown,
  signal: AbortSignal,
  context: FailureContext,
): ModelCallError {
  const { site, id } = context;
  const retried = context.maxRetries > 0
    ? ` (after ${context.maxRetries} ${context.maxRetries === 1 ? "retry" : "retries"})`
    : "";
  let message: string;
  if (error instanceof OpenAI.APIUserAbortError || signal.aborted) {
    const deadline = signal.reason instanceof DOMException && signal.reason.name === "TimeoutError";
    message = `Model call ${id} was cancelled before the reply arrived` +
      (deadline ? " (the caller's time limit ran out)." : ".");
  } else if (error instanceof OpenAI.APIConnectionTimeoutError) {
    message =
      `Model API at ${site} did not answer within ${context.timeoutMs / 1000} s${retried}. ` +
      "Check that the server is up and not overloaded, or allow the model a longer timeout.";
  } else if (error instanceof OpenAI.APIConnectionError) {
    message = unreachableMessage(site, causeChain(error), context.apiKey);
  } else if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    message = statusMessage(
      error.status,
      serverDetail(error.error, context.apiKey),
      context,
      retried,
    );
  } else {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    message = `Model API at ${site} returned a reply that could not be read ` +
      `(${clip(scrub(text, context.apiKey))}). ` +
      "Check that model.base_url points to an OpenAI-compatible chat-completions API.";
  }
  return new ModelCallError(message, { cause: error });
}

function statusMessage(
  status: number,
  detail: string,
  context: FailureContext,
  retried: string,
): string {
  const { site, name } = context;
  const said = detail === "" ? "" : `: ${detail}`;
  if (status === 401) {
    // Never echo the server's text here: OpenAI quotes part of the rejected key.
    return context.apiKey === null
      ? `Model API at ${site} requires an API key (HTTP 401) and none was set. ` +
        "Set the environment variable named by model.api_key_env."
      : `Model API at ${site} rejected the API key (HTTP 401). ` +
        "Check the environment variable named by model.api_key_env holds a valid key for this server.";
  }
  if (status === 403) {
    return `Model API at ${site} refused access to model "${name}" (HTTP 403${said}). ` +
      "Check that the API key may use this model.";
  }
  if (status === 404) {
    return `Model API at ${site} answered 404 Not Found for model "${name}"${
      said === "" ? "" : ` (${detail})`
    }. Check model.name and that model.base_url is the API root (usually ending in /v1).`;
  }
  if (status === 429) {
    return `Model API at ${site} rate-limited the request (HTTP 429${said})${retried}. ` +
      "Lower evaluation.concurrency, wait, or check the account's quota.";
  }
  if (status >= 500) {
    return `Model API at ${site} failed (HTTP ${status}${said})${retried}. ` +
      "The server had a problem; try again later or check its logs.";
  }
  return `Model API at ${site} rejected the request for model "${name}" (HTTP ${status}${said}). ` +
    "Check model.name and the model options (tools, temperature, max tokens) this server accepts.";
}

function unreachableMessage(site: string, causes: unknown[], apiKey: string | null): string {
  const prefix = `Model API at ${site} could not be reached`;
  const text = causes.map((cause) => cause instanceof Error ? cause.message : String(cause))
    .join(" | ");
  const permission = /Requires net access to "([^"]+)"/.exec(text);
  if (permission || causes.some((cause) => cause instanceof Deno.errors.NotCapable)) {
    const host = permission?.[1] ?? new URL(site).host;
    return `${prefix}: network permission for "${host}" was not granted. ` +
      `Run again with --allow-net=${host}.`;
  }
  if (/connection refused/i.test(text)) {
    return `${prefix}: connection refused. Check model.base_url and that the server is running.`;
  }
  if (/dns error|failed to lookup|name or service not known|nodename nor servname/i.test(text)) {
    return `${prefix}: host name not found. Check the host in model.base_url.`;
  }
  const blocked = /requests to port (\d+) are blocked/i.exec(text);
  if (blocked) {
    return `${prefix}: port ${blocked[1]} is on fetch's list of blocked ports. ` +
      "Serve the model on another port and update model.base_url.";
  }
  if (/certificate|tls|ssl/i.test(text)) {
    return `${prefix}: TLS handshake failed (${clip(scrub(text, apiKey))}). ` +
      "Check the URL scheme in model.base_url and the server's certificate.";
  }
  return `${prefix}: ${clip(scrub(text, apiKey))}. ` +
    "Check model.base_url and that the server is running.";
}

/** The error's causes, outermost first, skipping the SDK's generic wrapper (at most five). */
export function causeChain(error: Error): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error.cause;
  while (current !== undefined && chain.length < 5) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain.length > 0 ? chain : [error];
}

/** The `message` of an OpenAI-style error body, scrubbed and clipped; "" when there is none. */
function serverDetail(body: unknown, apiKey: string | null): string {
  const text = isRecord(body) && typeof body.message === "string"
    ? body.message
    : typeof body === "string"
    ? body
    : "";
  return clip(scrub(text.trim(), apiKey));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
