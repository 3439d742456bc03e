/**
 * The two ends of a service system's call: the request body of one question
 * (the `request:` template with `{{question}}`, `{{question_id}}` and
 * `{{repeat}}` filled in) and the reply read through the `response:` paths
 * into an answer, the retrieved contexts, the token usage and the cost.
 * Reading never trusts the reply: a missing answer, an answer that is not a
 * string, a context without a document id, a score or a count that is not a
 * finite number are each a {@link ReplyError} naming the path and what was
 * found there.
 *
 * @module
 */

import { z } from "zod";
import type { JsonValue, Usage } from "../lib/types.ts";
import { type JsonPath, parseJsonPath, readJsonPath } from "../lib/util/json_path.ts";
import { PLACEHOLDER, type ResponseMapping } from "./service_options.ts";

/** One context the service says it retrieved. */
export interface ServiceContext {
  doc_id: string;
  /** The service's passage id; null: the document id. */
  passage_id: string | null;
  /** Its score (the service's, or n, n − 1, ..., 1 in the order returned). */
  score: number;
  /** Its text, when the mapping reads one. */
  text: string | null;
}

/** What one call answered, mapped (what the response cache records). */
export interface ServiceReply {
  answer: string | null;
  /** Null when the mapping names no contexts. */
  contexts: ServiceContext[] | null;
  /** Null when the mapping reads no token counts. */
  usage: Usage | null;
  /** Null when the mapping reads no cost (or the service reported none). */
  cost_usd: number | null;
}

/** The schema of a recorded {@link ServiceReply} (an entry that does not fit is a miss). */
export const serviceReplySchema: z.ZodType<ServiceReply> = z.strictObject({
  answer: z.string().nullable(),
  contexts: z.array(z.strictObject({
    doc_id: z.string().min(1),
    passage_id: z.string().nullable(),
    score: z.number(),
    text: z.string().nullable(),
  })).nullable(),
  usage: z.strictObject({ input_tokens: z.int().min(0), output_tokens: z.int().min(0) })
    .nullable(),
  cost_usd: z.number().min(0).nullable(),
});

/** A reply that does not fit the mapping; `message` says where and what. */
export class ReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplyError";
  }
}

/** What the placeholders stand for in one request. */
export interface RequestValues {
  question: string;
  question_id: string;
  repeat: number;
}

/**
 * `template` with its placeholders filled in. A string that is exactly
 * `{{repeat}}` becomes the number; any other placeholder is put in as text.
 * Keys are filled too; a `__proto__` key stays a key.
 */
export function fillRequest(template: JsonValue, values: RequestValues): JsonValue {
  const text = (s: string) =>
    s.replaceAll(PLACEHOLDER, (whole, name: string) => {
      if (name === "question") return values.question;
      if (name === "question_id") return values.question_id;
      if (name === "repeat") return String(values.repeat);
      return whole;
    });
  const fill = (node: JsonValue): JsonValue => {
    if (typeof node === "string") return node === "{{repeat}}" ? values.repeat : text(node);
    if (Array.isArray(node)) return node.map(fill);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(node)) {
      Object.defineProperty(out, text(key), {
        value: fill(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return fill(template);
}

/** The mapping's paths, parsed once. */
export interface ReplyPaths {
  answer: JsonPath;
  contexts: JsonPath | null;
  doc_id: JsonPath;
  passage_id: JsonPath | null;
  text: JsonPath | null;
  score: JsonPath | null;
  input_tokens: JsonPath | null;
  output_tokens: JsonPath | null;
  cost_usd: JsonPath | null;
}

/** Parses the paths of `mapping` (checked when the config loaded). */
export function replyPaths(mapping: ResponseMapping): ReplyPaths {
  const path = (text: string | null) => text === null ? null : parseJsonPath(text);
  return {
    answer: parseJsonPath(mapping.answer),
    contexts: path(mapping.contexts),
    doc_id: parseJsonPath(mapping.doc_id),
    passage_id: path(mapping.passage_id),
    text: path(mapping.text),
    score: path(mapping.score),
    input_tokens: path(mapping.input_tokens),
    output_tokens: path(mapping.output_tokens),
    cost_usd: path(mapping.cost_usd),
  };
}

/**
 * Reads `reply` through `paths`.
 *
 * @throws {ReplyError} naming the first thing that does not fit.
 */
export function readReply(reply: unknown, paths: ReplyPaths): ServiceReply {
  const answerValue = readJsonPath(reply, paths.answer);
  if (answerValue !== null && typeof answerValue !== "string") {
    throw new ReplyError(
      `sent no answer at ${paths.answer.text} (found ${kindOf(answerValue)}; expected a string). ` +
        "Check the system's response.answer path against what the service returns.",
    );
  }
  let contexts: ServiceContext[] | null = null;
  if (paths.contexts !== null) {
    const list = readJsonPath(reply, paths.contexts);
    if (!Array.isArray(list)) {
      throw new ReplyError(
        `sent no list of contexts at ${paths.contexts.text} (found ${kindOf(list)}). ` +
          "Check the system's response.contexts path (or set it to null).",
      );
    }
    contexts = list.map((item, i) => readContext(item, i, list.length, paths));
  }
  const count = (path: JsonPath | null, what: string): number | null => {
    if (path === null) return null;
    const value = readJsonPath(reply, path);
    if (value === undefined || value === null) return null;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw new ReplyError(
        `sent ${
          kindOf(value)
        } as its ${what} at ${path.text} (expected a whole number of 0 or more).`,
      );
    }
    return value;
  };
  const input = count(paths.input_tokens, "input tokens");
  const output = count(paths.output_tokens, "output tokens");
  let cost: number | null = null;
  if (paths.cost_usd !== null) {
    const value = readJsonPath(reply, paths.cost_usd);
    if (value !== undefined && value !== null) {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw new ReplyError(
          `sent ${
            kindOf(value)
          } as its cost at ${paths.cost_usd.text} (expected a number of 0 or more).`,
        );
      }
      cost = value;
    }
  }
  return {
    answer: answerValue,
    contexts,
    usage: input === null && output === null
      ? null
      : { input_tokens: input ?? 0, output_tokens: output ?? 0 },
    cost_usd: cost,
  };
}

function readContext(item: unknown, i: number, n: number, paths: ReplyPaths): ServiceContext {
  const wrong = (path: JsonPath, what: string, want: string) =>
    new ReplyError(
      `sent context ${i + 1} with no ${what} at ${path.text} (found ${
        kindOf(readJsonPath(item, path))
      }; expected ${want}). Check the system's response.${what} path.`,
    );
  const docId = readId(readJsonPath(item, paths.doc_id));
  if (docId === null) throw wrong(paths.doc_id, "doc_id", "a string or a whole number");
  let passageId: string | null = null;
  if (paths.passage_id !== null) {
    passageId = readId(readJsonPath(item, paths.passage_id));
    if (passageId === null) {
      throw wrong(paths.passage_id, "passage_id", "a string or a whole number");
    }
  }
  let score = n - i;
  if (paths.score !== null) {
    const value = readJsonPath(item, paths.score);
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw wrong(paths.score, "score", "a finite number");
    }
    score = value;
  }
  let text: string | null = null;
  if (paths.text !== null) {
    const value = readJsonPath(item, paths.text);
    if (typeof value !== "string") throw wrong(paths.text, "text", "a string");
    text = value;
  }
  return { doc_id: docId, passage_id: passageId, score, text };
}

function readId(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return null;
}

/** What a value is, for messages (never the value: it may be huge). */
export function kindOf(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
