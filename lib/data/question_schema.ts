/**
 * The question-set format: zod schemas for a question and its checks. The
 * schema is the type (`Question`, `Check`).
 *
 * @module
 */

import { z } from "zod";

const text = z.string().min(1, "must not be empty");

/** `numeric_equals`: some number in the answer is within `tolerance` of `value`. */
export const numericEqualsCheck = z.strictObject({
  type: z.literal("numeric_equals"),
  value: z.number(),
  /** Absolute tolerance; default 0 (exact, up to float rounding). */
  tolerance: z.number().nonnegative().default(0),
});

/** `contains`: the answer contains `value` (case-sensitive). */
export const containsCheck = z.strictObject({ type: z.literal("contains"), value: text });
/** `icontains`: the answer contains `value`, ignoring case. */
export const icontainsCheck = z.strictObject({ type: z.literal("icontains"), value: text });
/** `not_contains`: the answer does not contain `value` in any case. */
export const notContainsCheck = z.strictObject({ type: z.literal("not_contains"), value: text });
/** `iregex`: the case-insensitive regular expression `pattern` matches somewhere in the answer. */
export const iregexCheck = z.strictObject({ type: z.literal("iregex"), pattern: text });
/** `equals`: the answer, trimmed, is exactly `value`. */
export const equalsCheck = z.strictObject({ type: z.literal("equals"), value: z.string() });
/** `min_tool_calls`: at least `value` tool calls were made. */
export const minToolCallsCheck = z.strictObject({
  type: z.literal("min_tool_calls"),
  value: z.int().nonnegative(),
});
/** `max_tool_calls`: at most `value` tool calls were made. */
export const maxToolCallsCheck = z.strictObject({
  type: z.literal("max_tool_calls"),
  value: z.int().nonnegative(),
});
/** `tool_used`: the tool named `tool` was called at least once. */
export const toolUsedCheck = z.strictObject({ type: z.literal("tool_used"), tool: text });

/** Default pass threshold of `token_f1`. */
export const TOKEN_F1_THRESHOLD = 0.5;

/**
 * `exact_match`: the answer equals one of the gold answers after SQuAD
 * normalisation. `answers` defaults to the question's `answers`.
 */
export const exactMatchCheck = z.strictObject({
  type: z.literal("exact_match"),
  answers: z.array(z.string()).min(1, "list at least one gold answer").optional(),
});
/**
 * `token_f1`: the best token F1 of the answer against the gold answers (SQuAD
 * normalisation) is at least `threshold`. `answers` defaults to the question's.
 */
export const tokenF1Check = z.strictObject({
  type: z.literal("token_f1"),
  answers: z.array(z.string()).min(1, "list at least one gold answer").optional(),
  /** Lowest F1 that passes, in [0, 1]; default {@link TOKEN_F1_THRESHOLD}. */
  threshold: z.number().min(0).max(1).default(TOKEN_F1_THRESHOLD),
});

/** One mechanical check of an answer or its trace. */
export const checkSchema = z.discriminatedUnion("type", [
  numericEqualsCheck,
  containsCheck,
  icontainsCheck,
  notContainsCheck,
  iregexCheck,
  equalsCheck,
  minToolCallsCheck,
  maxToolCallsCheck,
  toolUsedCheck,
  exactMatchCheck,
  tokenF1Check,
]);

/** One check, after defaults. */
export type Check = z.output<typeof checkSchema>;

/** The check type names, for did-you-mean hints. */
export const CHECK_TYPES: readonly string[] = checkSchema.options.map((o) => o.shape.type.value);

/** Highest relevance grade an evidence entry may carry. */
export const MAX_GRADE = 1000;

/** One judged-relevant document and its grade (the nDCG gain; 1 = relevant). */
export interface Evidence {
  id: string;
  grade: number;
}

/**
 * `evidence:` entries: a document id (grade 1) or `{id, grade}` with an
 * integer grade of at least 1; read as {@link Evidence}. An integer id is
 * read as its decimal text (`471` → `"471"`), as question ids are.
 */
export const evidenceSchema = z.array(
  z.union([
    z.union([text, z.int().transform(String)]).transform((id): Evidence => ({ id, grade: 1 })),
    z.strictObject({
      id: z.union([text, z.int().transform(String)]),
      grade: z.int().min(1).max(MAX_GRADE),
    }),
  ]),
);

/** One question of a question set. */
export const questionSchema = z.strictObject({
  id: z.union([text, z.int().transform(String)]),
  question: text,
  /** Gold answers, for the report and for people; checks do the scoring. */
  answers: z.array(z.union([z.string(), z.number().transform(String)])).optional(),
  /** The documents that hold the answer, with graded relevance (for retrieval metrics). */
  evidence: evidenceSchema.optional(),
  /** single_hop, multi_hop, unanswerable, ... (free text, used to group results). */
  kind: text.optional(),
  /** Tools the question needs; checked against the tool registry. */
  requires_tools: z.array(text).optional(),
  /** Answer and trace checks; none for a question scored by retrieval alone. */
  checks: z.array(checkSchema).default([]),
  tags: z.array(text).optional(),
});

/** One question, after defaults. */
export type Question = z.output<typeof questionSchema>;
