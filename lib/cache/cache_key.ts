/**
 * Content addresses of the response cache: the SHA-256 (lower-case hex) of
 * the canonical JSON of what decides a response. Canonical JSON here is
 * `JSON.stringify` with the keys of every object sorted by UTF-16 code
 * units, no white space, `undefined` members dropped (as JSON.stringify
 * does), so two requests that differ only in key order share an entry.
 *
 * @module
 */

import { sha256 } from "../util/sha256.ts";

/** Version of the key layout; a change makes every old entry a miss. */
export const CACHE_KEY_VERSION = 1;

/** What decides a model response. */
export interface ModelKeyParts {
  /** `openai` (the provider of the config's `model:`). */
  provider: string;
  /** The API root actually called (the default OpenAI URL when `base_url` is null). */
  base_url: string;
  /** Model name as the API knows it. */
  model: string;
  /** The conversation sent, in the OpenAI chat shape. */
  messages: unknown;
  /** The tools offered (name, description, JSON Schema), in order. */
  tools: unknown;
  /** Sampling and output parameters sent (temperature, max tokens); null when not sent. */
  params: { temperature: number | null; max_tokens: number | null };
}

/**
 * What decides a tool result. `server` names where the tool runs: null for
 * ragbench's own process, `custom:<module path>` for a custom tool, and an
 * MCP server's identity (e.g. `mcp:<name>`) for MCP tools.
 */
export interface ToolKeyParts {
  tool: string;
  server: string | null;
  /** The tool's configured options (they change what it does). */
  options: unknown;
  /** The parsed arguments the model sent. */
  arguments: unknown;
}

/** The key of a model response. */
export function modelKey(parts: ModelKeyParts): string {
  return sha256(canonicalJson({ v: CACHE_KEY_VERSION, kind: "model", ...parts }));
}

/** The key of a tool result. */
export function toolKey(parts: ToolKeyParts): string {
  return sha256(canonicalJson({ v: CACHE_KEY_VERSION, kind: "tool", ...parts }));
}

/**
 * Canonical JSON of `value` (see the module docs).
 *
 * @throws {TypeError} on values JSON cannot hold faithfully (bigint, a cycle,
 *   a non-finite number).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, new Set()));
}

function sortKeys(value: unknown, seen: Set<object>): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`Cannot key a non-finite number (${value})`);
  }
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value)) throw new TypeError("Cannot key a value with a cycle");
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => sortKeys(item ?? null, seen));
    // A null-prototype record: a "__proto__" key stays an ordinary key.
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) sorted[key] = sortKeys(item, seen);
    }
    return sorted;
  } finally {
    seen.delete(value);
  }
}
