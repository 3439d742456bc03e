/**
 * Content addresses of the response cache: the SHA-256 (lower-case hex) of
 * the canonical JSON (`lib/util/canonical_json.ts`: keys sorted at every
 * depth, no white space) of what decides a response, so two requests that
 * differ only in key order share an entry. A non-finite number is refused.
 *
 * @module
 */

import { canonicalJson } from "../util/canonical_json.ts";
import { sha256 } from "../util/sha256.ts";

/** A non-finite number in a request is refused rather than keyed as `null`. */
const STRICT = { strictNumbers: true };

/**
 * Version of the key layout; a change makes every old entry a miss. It stayed
 * 1 when the repeat joined the key: repeat 1 is keyed as before (so a cache
 * recorded by an older ragbench still serves it), and only repeats 2 and up
 * carry their number (older versions never wrote such keys; they served those
 * repeats from repeat 1's entry, which stays a genuine recording of repeat 1).
 */
export const CACHE_KEY_VERSION = 1;

/**
 * The `repeat` part of a key: nothing for repeat 1 (or none), `{repeat: n}`
 * from repeat 2 on. Each repeat of a question is then its own entry: a first
 * run sends every repeat live, a re-run replays each from its own recording,
 * whatever order the repeats ran in.
 */
export function repeatPart(repeat: number | undefined): { repeat?: number } {
  return repeat === undefined || repeat === 1 ? {} : { repeat };
}

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
  /** The repeat, from 2 on (see {@link repeatPart}); absent for repeat 1. */
  repeat?: number;
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
  /** The repeat, from 2 on (see {@link repeatPart}); absent for repeat 1. */
  repeat?: number;
}

/** The key of a model response. */
export function modelKey(parts: ModelKeyParts): string {
  return sha256(canonicalJson({ v: CACHE_KEY_VERSION, kind: "model", ...parts }, STRICT));
}

/** The key of a tool result. */
export function toolKey(parts: ToolKeyParts): string {
  return sha256(canonicalJson({ v: CACHE_KEY_VERSION, kind: "tool", ...parts }, STRICT));
}

/**
 * What decides a retriever service's answer (a reranker's scores, the
 * user's retrieval service's hits): the retriever kind, the endpoint as the
 * config writes it (`${VAR}` templates, never the values they expand to)
 * and the request body and settings that shape the answer.
 */
export interface RetrievalKeyParts {
  /** The retriever kind (`rerank`, `http`). */
  retriever_kind: string;
  endpoint: string;
  request: unknown;
}

/** The key of a retriever service's answer. */
export function retrievalKey(parts: RetrievalKeyParts): string {
  return sha256(canonicalJson({ v: CACHE_KEY_VERSION, kind: "retrieval", ...parts }, STRICT));
}
