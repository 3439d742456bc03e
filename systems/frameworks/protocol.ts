/**
 * The line protocol between ragbench and a framework's process: one JSON
 * object a line, on the child's stdin (ragbench → child) and stdout
 * (child → ragbench). Every line the child writes starts with
 * {@link LINE_PREFIX}, so that text a framework prints to stdout by itself is
 * told apart (and ignored) instead of breaking the protocol.
 *
 * The child is the untrusted side (it runs third-party framework code):
 * ragbench parses its lines with the strict schemas here, caps a line's
 * length, and treats anything else as the process breaking the protocol.
 * The child trusts what ragbench sends and imports only the types.
 *
 * One process serves many questions at once; `run` numbers them, `seq`
 * numbers the requests of one run.
 *
 * @module
 */

import { z } from "zod";

/** Starts every line the child writes for ragbench. */
export const LINE_PREFIX = "\u0001ragbench ";

/** The longest line ragbench reads from a framework's process, in bytes (16 MiB). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Most messages one model request may carry. */
const MAX_MESSAGES = 10_000;
/** Most tools a framework may offer in one model request. */
const MAX_TOOLS = 1_000;

/** A tool the framework is given: name, description, JSON Schema of its arguments. */
export interface AdapterTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What ragbench sends the child. */
export type ToChild =
  /** Start answering one question. */
  | {
    t: "run";
    run: number;
    system: string;
    question: string;
    tools: AdapterTool[];
    /** The framework's own step cap: a backstop above ragbench's budget. */
    max_model_calls: number;
  }
  /** The reply to a model request. */
  | { t: "model"; run: number; seq: number; content: string | null; tool_calls: WireToolCall[] }
  /** The text of a tool call's result, as the model reads it. */
  | { t: "tool"; run: number; seq: number; text: string }
  /** Stop a run: the question timed out, failed or was cancelled. */
  | { t: "cancel"; run: number }
  /** Report the process's heap (scripts/bench_frameworks.ts). */
  | { t: "stats" };

/** A tool call as the model made it; `arguments` is JSON text. */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

const toolCallSchema = z.strictObject({
  id: z.string().max(1_000),
  name: z.string().max(1_000),
  arguments: z.string(),
});

/** A conversation message, in ragbench's neutral (OpenAI chat) shape. */
export const messageSchema = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.string() }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(toolCallSchema).max(MAX_TOOLS).optional(),
  }),
  z.strictObject({
    role: z.literal("tool"),
    tool_call_id: z.string().max(1_000),
    content: z.string(),
  }),
]);

/** What the child sends ragbench (without the line prefix). */
export const fromChildSchema = z.discriminatedUnion("t", [
  /** The framework is loaded; its versions as the child sees them. */
  z.strictObject({ t: z.literal("ready"), framework: z.string().max(200) }),
  /** The framework asks the model: the conversation and the names of the tools it offers. */
  z.strictObject({
    t: z.literal("model"),
    run: z.int().positive(),
    seq: z.int().positive(),
    messages: z.array(messageSchema).min(1).max(MAX_MESSAGES),
    tools: z.array(z.string().max(1_000)).max(MAX_TOOLS),
  }),
  /** The framework runs a tool. */
  z.strictObject({
    t: z.literal("tool"),
    run: z.int().positive(),
    seq: z.int().positive(),
    call: toolCallSchema,
  }),
  /** The framework finished: its answer (null when it gave none). */
  z.strictObject({ t: z.literal("done"), run: z.int().positive(), answer: z.string().nullable() }),
  /** The framework threw. */
  z.strictObject({ t: z.literal("failed"), run: z.int().positive(), message: z.string() }),
  /** A cancel was received: the process's main thread is responsive. */
  z.strictObject({ t: z.literal("cancelled"), run: z.int().positive() }),
  /** The process's V8 heap in use, in bytes (the answer to `stats`). */
  z.strictObject({ t: z.literal("stats"), heap_used: z.number().nonnegative() }),
  /** A problem outside any run (an unhandled rejection), for the log. */
  z.strictObject({ t: z.literal("warning"), message: z.string() }),
]);

/** A message from the child, parsed. */
export type FromChild = z.output<typeof fromChildSchema>;

/** The most characters of a child's message kept in an error message. */
export const MAX_MESSAGE_CHARS = 2_000;
