/**
 * Text helpers of the OpenAI-compatible endpoints that need no SDK: the
 * default API root, credential scrubbing, clipping and the printable form of
 * a base URL. Kept apart from `openai_errors.ts` so a run that never calls an
 * endpoint (`--mock`) does not load `npm:openai` to compute an identity.
 *
 * @module
 */

import { ModelCallError } from "./model.ts";

/** The API root used when `baseUrl` is not set. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Removes anything that looks like a credential, so the text can go into a results file. */
export function scrub(text: string, apiKey: string | null): string {
  let clean = text;
  if (apiKey !== null && apiKey.length >= 4) clean = clean.replaceAll(apiKey, "[redacted]");
  return clean
    .replace(/\bBearer\s+\S+/gi, "Bearer [redacted]")
    .replace(/\bsk-[\w*.\-]{3,}/g, "[redacted]");
}

/** `text` cut to `limit` characters, with `...` when cut. */
export function clip(text: string, limit = 300): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}...`;
}

/**
 * `url` without user info, query or fragment (they may hold credentials),
 * and without trailing slashes: the form every message prints.
 *
 * @throws {ModelCallError} if `url` is not a valid http(s) URL.
 */
export function safeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new ModelCallError(
      `model.base_url "${clip(url.replace(/\/\/[^/@]*@/, "//"), 100)}" is not a valid URL. ` +
        "Use the API root, e.g. http://127.0.0.1:11434/v1.",
      { cause: error },
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ModelCallError(
      `model.base_url "${parsed.protocol}//${parsed.host}" must use http or https. ` +
        "Use the API root, e.g. http://127.0.0.1:11434/v1.",
    );
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, "")}`;
}
