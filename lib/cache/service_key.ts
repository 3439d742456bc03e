/**
 * The response-cache key of a deployed pipeline's answer (`type: http` /
 * `command` systems): the system type, the endpoint as the config writes it
 * (the URL and headers, or the command and its `env`, with `${VAR}`
 * templates and never the values they expand to), the request body sent,
 * the response mapping (a changed mapping is a new entry: what is recorded
 * is the mapped answer) and the repeat from 2 on (lib/cache/cache_key.ts
 * `repeatPart`).
 *
 * @module
 */

import { canonicalJson } from "../util/canonical_json.ts";
import { sha256 } from "../util/sha256.ts";
import { CACHE_KEY_VERSION, repeatPart } from "./cache_key.ts";

/** What decides a deployed pipeline's answer. */
export interface ServiceKeyParts {
  /** `http` or `command`. */
  system_type: string;
  endpoint: unknown;
  request: unknown;
  mapping: unknown;
  repeat?: number;
}

/** The key of a deployed pipeline's answer. */
export function serviceKey(parts: ServiceKeyParts): string {
  const { repeat, ...rest } = parts;
  return sha256(
    canonicalJson(
      { v: CACHE_KEY_VERSION, kind: "service", ...rest, ...repeatPart(repeat) },
      { strictNumbers: true },
    ),
  );
}
