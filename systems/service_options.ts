/**
 * The config of a deployed pipeline as a system (`type: http`, `type:
 * command`): what is sent for each question (`request:`, a JSON template)
 * and where the answer, the retrieved contexts, the token usage and the cost
 * are in what comes back (`response:`, JSON paths of lib/util/json_path.ts).
 * Both types share these keys and the limits (`timeout_s`, `max_retries`,
 * `max_response_mb`); each adds how it is reached (`url` and `headers`, or
 * `command` and `env`).
 *
 * @module
 */

import { z } from "zod";
import { nameSchema } from "../lib/config/schema.ts";
import { parseJsonPath } from "../lib/util/json_path.ts";
import type { JsonValue } from "../lib/types.ts";

/** The placeholders a request template may hold, filled for each question. */
export const REQUEST_PLACEHOLDERS = ["question", "question_id", "repeat"] as const;

/** `{{name}}` in a request string. Static and linear-time. */
export const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A JSON path, checked when the config loads. */
export const jsonPathSchema = z.string().superRefine((text, ctx) => {
  try {
    parseJsonPath(text);
  } catch (error) {
    ctx.addIssue({
      code: "custom",
      message: `not a JSON path: ${(error as Error).message}`,
    });
  }
});

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), jsonValue),
  ])
);

/** The body sent for each question: any JSON, its strings holding `{{question}}` and the like. */
export const requestSchema = jsonValue.superRefine((value, ctx) => {
  const unknown = new Set<string>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === "string") {
      for (const m of node.matchAll(PLACEHOLDER)) {
        if (!(REQUEST_PLACEHOLDERS as readonly string[]).includes(m[1])) unknown.add(m[1]);
      }
    } else if (node !== null && typeof node === "object") {
      pending.push(...Object.keys(node), ...Object.values(node));
    }
  }
  for (const name of unknown) {
    ctx.addIssue({
      code: "custom",
      message: `unknown placeholder {{${name}}}: use ${
        REQUEST_PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")
      }`,
    });
  }
}).default({ question: "{{question}}" });

/** Where each part of the reply is (paths from the reply's root; context fields from each context). */
export const responseSchema = z.strictObject({
  /** The answer: a string (null there means the service gave none). */
  answer: jsonPathSchema.default("$.answer"),
  /** The list of retrieved contexts; null: the service reports none (no retrieval metrics). */
  contexts: jsonPathSchema.nullable().default(null),
  /** In a context: the corpus document id (a string, or a whole number). */
  doc_id: jsonPathSchema.default("$.doc_id"),
  /** In a context: the service's own passage id; null: the document id. */
  passage_id: jsonPathSchema.nullable().default(null),
  /** In a context: its text; null: not read. */
  text: jsonPathSchema.nullable().default(null),
  /** In a context: its score (a finite number); null: ranked in the order returned. */
  score: jsonPathSchema.nullable().default(null),
  /** Input tokens the service spent on the question; null: not reported. */
  input_tokens: jsonPathSchema.nullable().default(null),
  /** Output tokens; null: not reported. */
  output_tokens: jsonPathSchema.nullable().default(null),
  /** US dollars the question cost; null: not reported (the cost is then unknown). */
  cost_usd: jsonPathSchema.nullable().default(null),
});

/** The `response:` mapping after defaults. */
export type ResponseMapping = z.output<typeof responseSchema>;

/** Keys both service system types take. */
const serviceBase = {
  type: z.string(),
  name: nameSchema.optional(),
  description: z.string().optional(),
  request: requestSchema,
  response: responseSchema.prefault({}),
  /** Time one attempt may take, in seconds (the question's timeout bounds them all). */
  timeout_s: z.number().positive().max(3600).default(60),
  /** Largest reply read, in MB; a longer one is the question's error. */
  max_response_mb: z.number().positive().max(1024).default(10),
};

/** `type: http`: POST the request to `url`. */
export const httpOptionsSchema = z.strictObject({
  ...serviceBase,
  /** Where each question is POSTed; `${VAR}` is filled from the environment (a key, say). */
  url: z.string().min(1).superRefine((url, ctx) => {
    const probe = url.replaceAll(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, "x");
    if (!/^https?:\/\//.test(probe) || !URL.canParse(probe)) {
      ctx.addIssue({ code: "custom", message: "give an http:// or https:// URL" });
    }
  }),
  /** Request headers; values may hold `${VAR}`. */
  headers: z.record(z.string().regex(HEADER_NAME, "must be an HTTP header name"), z.string())
    .default({}),
  /** Retries after no response, 408, 409, 429 and 5xx. */
  max_retries: z.int().min(0).max(10).default(2),
});

/** `type: command`: run the command once per question, the request on stdin, the reply on stdout. */
export const commandOptionsSchema = z.strictObject({
  ...serviceBase,
  /** The program and its arguments (a relative program path is the config folder's). */
  command: z.array(z.string().min(1)).min(1, "give the program and its arguments"),
  /** Variables the process gets besides the defaults; values may hold `${VAR}`. */
  env: z.record(z.string().regex(ENV_NAME, "must be an environment variable name"), z.string())
    .default({}),
  /** Runs again after an exit that is not 0 or a timeout (not after output that is not JSON). */
  max_retries: z.int().min(0).max(10).default(0),
});

/** An http system's options after defaults. */
export type HttpOptions = z.output<typeof httpOptionsSchema>;
/** A command system's options after defaults. */
export type CommandOptions = z.output<typeof commandOptionsSchema>;
