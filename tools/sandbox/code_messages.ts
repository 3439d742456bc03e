/**
 * The messages the code agent's child sends its parent (see `code_child.ts`
 * for the protocol), and the parent's reading of them. Nothing the child
 * sends is trusted: each line must fit one strict schema (unknown keys,
 * `__proto__` included, are protocol errors), within the sizes below.
 *
 * @module
 */

import { z } from "zod";
import type { CodeLimits, ProgramOutcome } from "./code_outcome.ts";

/** Longest final answer kept (characters); the child cuts a longer one and says so. */
export const MAX_ANSWER_CHARS = 100_000;
/**
 * Longest line accepted from the child (characters); longer kills it. Above
 * what an honest child sends: the `done` message holds the answer and the
 * printed text (each at most 100,000 characters, and JSON escaping can make a
 * character six), so a long answer is never mistaken for a program writing
 * to stdout itself.
 */
export const MAX_LINE_CHARS = 2_000_000;
/** Longest arguments text of one tool call from a program (characters; the child refuses longer). */
export const MAX_ARGS_CHARS = 100_000;

const callSchema = z.strictObject({
  type: z.literal("call"),
  id: z.int().positive(),
  tool: z.string().min(1).max(100),
  args: z.string().max(MAX_ARGS_CHARS),
});
const doneSchema = z.discriminatedUnion("status", [
  z.strictObject({
    type: z.literal("done"),
    status: z.literal("answered"),
    answer: z.string().max(MAX_ANSWER_CHARS),
    answer_cut: z.boolean(),
    printed: z.string(),
    printed_cut: z.boolean(),
  }),
  z.strictObject({
    type: z.literal("done"),
    status: z.literal("no_answer"),
    printed: z.string(),
    printed_cut: z.boolean(),
  }),
  z.strictObject({
    type: z.literal("done"),
    status: z.literal("error"),
    error: z.strictObject({
      kind: z.enum(["syntax", "exception", "answer"]),
      message: z.string(),
    }),
    printed: z.string(),
    printed_cut: z.boolean(),
  }),
]);
const readySchema = z.strictObject({ type: z.literal("ready") });

/** A program's tool call, as the child sends it. */
export type ChildCall = z.output<typeof callSchema>;
/** The end of a program, as the child sends it. */
export type ChildDone = z.output<typeof doneSchema>;

/** What a line from the child is: a tool call, the program's end, or nothing the protocol knows. */
export type ChildLine =
  | { type: "call"; call: ChildCall }
  | { type: "done"; done: ChildDone }
  | { type: "invalid" };

/** Reads one line the child wrote while a program runs. */
export function readChildLine(line: string): ChildLine {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { type: "invalid" };
  }
  const call = callSchema.safeParse(message);
  if (call.success) return { type: "call", call: call.data };
  const done = doneSchema.safeParse(message);
  if (done.success) return { type: "done", done: done.data };
  return { type: "invalid" };
}

/** Whether `line` is the child's first message, `ready`. */
export function isReady(line: string): boolean {
  try {
    return readySchema.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

/** The outcome a `done` message reports, its printed text cut at the run's limit. */
export function outcomeOfDone(d: ChildDone, limits: CodeLimits): ProgramOutcome {
  const printed = d.printed.slice(0, limits.maxPrintChars);
  const printedCut = d.printed_cut || d.printed.length > limits.maxPrintChars;
  if (d.status === "answered") {
    return { status: "answered", answer: d.answer, answerCut: d.answer_cut, printed, printedCut };
  }
  if (d.status === "no_answer") return { status: "no_answer", printed, printedCut };
  return {
    status: "error",
    kind: d.error.kind,
    message: d.error.message.slice(0, 2000),
    printed,
    printedCut,
  };
}
