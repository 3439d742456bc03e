/**
 * The schema of a line of `per_question_results.jsonl`, as `run.json` has
 * `manifest.ts`: every reader of result lines — `--resume`
 * (`previous_results.ts`), `ragbench report` and `ragbench compare`
 * (`lib/report/read_run.ts`) — checks a line with it, so what is read back is
 * what the writer wrote, or the reader says which field is wrong.
 *
 * It describes `QuestionResult` (`lib/types.ts`) field by field; a
 * compile-time check below keeps the two the same. Objects are loose: a key
 * a later version adds is kept, not refused. A line scored by retrieval
 * alone (a question without checks) has `passed` and `answer_score` null:
 * that is a result like any other.
 *
 * @module
 */

import { z } from "zod";
import { FAILURE_LABELS } from "../score/failure_label.ts";
import { type JsonValue, type QuestionResult, TOOL_ERROR_KINDS } from "../types.ts";

/** Any JSON value: a line came from `JSON.parse`, so what it holds is JSON already. */
const json = z.custom<JsonValue>(() => true);

const count = z.number().int().nonnegative();
const finite = z.number().refine(Number.isFinite, "not a finite number");

const usage = z.looseObject({ input_tokens: finite, output_tokens: finite });

const retryFields = {
  retries: count.optional(),
  http_statuses: z.array(z.number()).optional(),
  backoff_ms: finite.optional(),
};

const stepError = z.looseObject({
  kind: z.enum(["model", "timeout", "retrieval", "internal"]),
  message: z.string(),
  ...retryFields,
});

const toolResult = z.looseObject({
  output: z.string(),
  data: json.optional(),
  error: z.looseObject({
    kind: z.enum(TOOL_ERROR_KINDS),
    message: z.string(),
    detail: z.string().optional(),
  }).nullable(),
  truncated: z.boolean(),
  cost_usd: finite,
  latency_ms: finite,
});

const modelStep = z.looseObject({
  type: z.literal("model"),
  usage,
  cost_usd: finite,
  latency_ms: finite,
  content: z.string().nullable(),
  tool_calls: z.array(z.looseObject({ id: z.string(), name: z.string(), arguments: z.string() })),
  final: z.boolean(),
  cached: z.literal(true).optional(),
  recorded_usage: usage.optional(),
  recorded_cost_usd: finite.optional(),
  ...retryFields,
});

const toolStep = z.looseObject({
  type: z.literal("tool"),
  tool: z.string(),
  call_id: z.string(),
  args: json,
  result: toolResult,
});

const retrievalStep = z.looseObject({
  type: z.literal("retrieval"),
  retriever: z.string(),
  query: z.string(),
  results: z.array(z.looseObject({ passage_id: z.string(), doc_id: z.string(), score: finite })),
  latency_ms: finite,
  embedding_tokens: finite,
  cost_usd: finite,
  error: z.looseObject({ kind: z.string(), message: z.string() }).nullable(),
});

/** The schema of one result line. */
export const resultLineSchema = z.looseObject({
  system: z.string().min(1),
  model: z.string().nullable(),
  question_id: z.string().min(1),
  repeat: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  question: z.string(),
  kind: z.string().nullable(),
  tags: z.array(z.string()),
  answer: z.string().nullable(),
  /** Null for a question without checks (scored by retrieval alone). */
  passed: z.boolean().nullable(),
  answer_score: z.number().min(0).max(1).nullable(),
  failure_label: z.enum(FAILURE_LABELS).nullable(),
  checks: z.array(z.looseObject({ type: z.string(), passed: z.boolean(), detail: z.string() })),
  error: stepError.nullable(),
  flags: z.looseObject({
    best_effort: z.boolean(),
    budget_exhausted: z.boolean(),
    format_error: z.boolean(),
  }),
  format_errors: count,
  usage,
  cost_usd: finite,
  latency_ms: finite,
  retrieval: z.looseObject({
    retrieved: z.boolean(),
    relevant: count,
    recall: finite.nullable(),
    mrr: finite.nullable(),
    metrics: z.record(z.string(), finite).nullable(),
    ranking: z.array(z.string()),
    scores: z.array(z.number()),
  }),
  trajectory: z.looseObject({
    tool_calls: count,
    tool_errors: count,
    searches: count,
    distinct_queries: count,
    steps_to_evidence: count.nullable(),
    scored_searches: count,
    redundant_searches: count,
    required_tools_used: z.boolean().nullable(),
  }),
  steps: z.array(z.discriminatedUnion("type", [modelStep, toolStep, retrievalStep])),
});

// The schema and the type describe the same line: each must be assignable to the other (the
// schema's loose objects aside: their index signatures only let later keys through).
type Parsed = z.output<typeof resultLineSchema>;
type Known<T> = T extends JsonValue ? T
  : T extends readonly (infer U)[] ? Known<U>[]
  : T extends object ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> }
  : T;
const _toType: (line: Parsed) => QuestionResult = (line) => line;
const _toSchema: (line: QuestionResult) => Known<Parsed> = (line) => line;
void _toType;
void _toSchema;

/**
 * Checks one parsed line: the result, or why it is not one ("repeat: Too
 * small: expected number to be >=1"), naming the first wrong field.
 */
export function checkResultLine(
  value: unknown,
): { ok: true; line: QuestionResult } | { ok: false; why: string } {
  const parsed = resultLineSchema.safeParse(value);
  if (parsed.success) return { ok: true, line: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? issue.path.map(String).join(".") : "the line";
  return { ok: false, why: `${where}: ${issue.message}` };
}
