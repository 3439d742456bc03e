/**
 * What a custom system's process may send its host (`system_host.ts`), as
 * strict schemas: the process runs the user's code and is not trusted, so a
 * line that fits none of them (an unknown key, `__proto__` included, a text
 * over its cap) ends the question and the process.
 *
 * @module
 */

import { z } from "zod";
import { messageSchema } from "../frameworks/protocol.ts";

/** Most document ids an answer may cite. */
export const MAX_CITED = 1000;
/** Longest answer kept (characters). */
export const MAX_ANSWER_CHARS = 100_000;
/** Longest JSON text of one tool call's arguments (characters). */
const MAX_ARGS_CHARS = 100_000;
/** Most messages in one model request. */
const MAX_MESSAGES = 1_000;

const base = { type: z.literal("ask"), nonce: z.string(), id: z.int().positive() };

/** A call the system makes: the model, a tool, or its retriever. */
export const askSchema = z.discriminatedUnion("what", [
  z.strictObject({
    ...base,
    what: z.literal("model"),
    messages: z.array(messageSchema).min(1).max(MAX_MESSAGES),
    tools: z.array(z.string().max(200)).max(200),
    protocol: z.literal("grounded").optional(),
  }),
  z.strictObject({
    ...base,
    what: z.literal("tool"),
    name: z.string().max(200),
    arguments: z.string().max(MAX_ARGS_CHARS),
  }),
  z.strictObject({
    ...base,
    what: z.literal("retrieve"),
    query: z.string().max(100_000),
    k: z.int().min(1).max(1_000),
  }),
]);

/** A call the system makes, parsed. */
export type Ask = z.output<typeof askSchema>;

/** The end of a run, or the answer to `hello`. */
export const replySchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("answered"),
    nonce: z.string(),
    answer: z.string().max(MAX_ANSWER_CHARS),
    cited: z.array(z.string().max(1_000)).max(MAX_CITED),
  }),
  z.strictObject({ type: z.literal("failed"), nonce: z.string(), message: z.string() }),
  z.strictObject({ type: z.literal("loaded"), nonce: z.string() }),
]);

/** A reply, parsed. */
export type SystemReply = z.output<typeof replySchema>;
