/**
 * The failure of a retriever that calls an engine or a service (rerank,
 * http, postgres, opensearch, elasticsearch): its message always names the
 * retriever, its kind and the host it called, says what went wrong and what
 * to do, and never holds a secret (text quoted from a server is masked).
 * During a question it becomes the question's `retrieval` error (or the
 * `search` tool's `unavailable` result); while an index is built it stops the
 * run before the first question.
 *
 * @module
 */

import type { RetryReport } from "../../llm/retry_policy.ts";

/** Who failed: printed at the start of every message. */
export interface EngineSite {
  /** The retriever's name (a `retrievers:` key or a system's name). */
  retriever: string;
  /** Its kind (`rerank`, `http`, ...). */
  kind: string;
  /** Where it called, safe to print: `http://host:port/path`, `postgres://host:port/db`, a socket. */
  host: string;
}

/** The words every message starts with: `Retriever "NAME" (kind) at HOST`. */
export function siteText(site: EngineSite): string {
  return `Retriever "${site.retriever}" (${site.kind}) at ${site.host}`;
}

/** A failed call of a retriever's engine (see the module docs). */
export class EngineError extends Error {
  /** Whether another attempt might succeed (no response, 408, 409, 429, 5xx). */
  readonly retryable: boolean;
  /** HTTP status, or null when no response came (or the engine speaks no HTTP). */
  readonly status: number | null;
  /** Response headers, when a response came (for `Retry-After`). */
  readonly headers: Headers | null;
  /** The retries made before giving up, once the call is over. */
  attempts?: RetryReport;
  /** What went wrong, without the site (the message is the site's words, then this). */
  readonly what: string;
  readonly site: EngineSite;

  constructor(
    site: EngineSite,
    what: string,
    options: {
      cause?: unknown;
      retryable?: boolean;
      status?: number | null;
      headers?: Headers | null;
    } = {},
  ) {
    super(`${siteText(site)}: ${what}`, { cause: options.cause });
    this.name = "EngineError";
    this.what = what;
    this.site = site;
    this.retryable = options.retryable ?? false;
    this.status = options.status ?? null;
    this.headers = options.headers ?? null;
  }
}

/** `url` without user info, query or fragment (they may hold credentials): what messages print. */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "(an invalid URL)";
  }
}

/** `host:port` of an http(s) URL (the port made explicit): the `--allow-net` value. */
export function netHost(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
  return `${parsed.hostname}:${port}`;
}
