/**
 * The schema of a line of `per_question_results.jsonl`, as `run.json` has
 * `manifest.ts`: every reader of result lines — `--resume`
 * (`previous_results.ts`), `ragbench report` and `ragbench compare`
 * (`lib/report/read_run.ts`) — checks a line with it, so what is read back is
 * what the writer wrote, or the reader says which field is wrong.
 *
 * It describes `QuestionResult` (`lib/types.ts`) field by field; a
 * compile-time check below keeps the two the same. A key the schema does not
 * know (one a later version adds) is not an error, and is kept: a reader
 * keeps the object it parsed, never zod's copy (which would drop the key, and
 * which costs a third of the check: `looseObject` made validating 10,000 real
 * lines 4× slower than `object`). A line scored by retrieval alone (a question
 * without checks) has `passed` and `answer_score` null: that is a result like
 * any other.
 *
 * @module
 */

import { z } from "zod";
import { FAILURE_LABELS, type JsonValue, type QuestionResult, TOOL_ERROR_KINDS } from "../types.ts";
import { surelyResultLine } from "./result_line_check.ts";
import { RagbenchError } from "../errors.ts";

/** Any JSON value: a line came from `JSON.parse`, so what it holds is JSON already. */
const json = z.custom<JsonValue>(() => true);

/**
 * A list of strings, or of finite numbers, checked by one loop: rankings run
 * to a retriever's `top_k` (1,000 for an IR collection), and zod's check of
 * each element would cost more than the rest of the line.
 */
const strings = z.custom<string[]>(
  (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  "expected a list of strings",
);
const numbers = z.custom<number[]>(
  (v) => Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isFinite(x)),
  "expected a list of finite numbers",
);

/**
 * A metric name → value map, checked by one loop (zod's record checks each
 * key and value through its schemas: most of the time of a whole line).
 */
const metricMap = z.custom<Record<string, number>>(
  (v) =>
    typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === "number" && Number.isFinite(x)),
  "expected an object of metric names to finite numbers",
);

/** zod 4's number refuses NaN and ±Infinity. */
const finite = z.number();
/**
 * A count. Not checked to be a whole number: each zod check (`int`,
 * `nonnegative`) costs about as much as a field, and a reader only adds
 * counts up. `repeat` and `answer_score`, which keys and statistics rely on,
 * keep theirs.
 */
const count = z.number();

const usage = z.object({ input_tokens: finite, output_tokens: finite });

const retryFields = {
  retries: count.optional(),
  http_statuses: numbers.optional(),
  backoff_ms: finite.optional(),
  throttle_ms: finite.optional(),
};

const stepError = z.object({
  kind: z.enum(["model", "timeout", "retrieval", "system", "internal"]),
  message: z.string(),
  ...retryFields,
});

const toolResult = z.object({
  output: z.string(),
  data: json.optional(),
  error: z.object({
    kind: z.enum(TOOL_ERROR_KINDS),
    message: z.string(),
    detail: z.string().optional(),
  }).nullable(),
  truncated: z.boolean(),
  /** Null: a cost that could not be priced (no price for the model). */
  cost_usd: finite.nullable(),
  latency_ms: finite,
});

const modelStep = z.object({
  type: z.literal("model"),
  usage,
  cost_usd: finite.nullable(),
  latency_ms: finite,
  content: z.string().nullable(),
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })),
  final: z.boolean(),
  cached: z.literal(true).optional(),
  recorded_usage: usage.optional(),
  recorded_cost_usd: finite.nullable().optional(),
  restored: z.array(z.object({ tool_call_id: z.string(), framework_text: z.string() })).optional(),
  service: z.string().optional(),
  ...retryFields,
});

const toolStep = z.object({
  type: z.literal("tool"),
  tool: z.string(),
  call_id: z.string(),
  args: json,
  result: toolResult,
});

const retrievalStep = z.object({
  type: z.literal("retrieval"),
  retriever: z.string(),
  query: z.string(),
  k: count.optional(),
  results: z.array(
    z.object({
      passage_id: z.string(),
      doc_id: z.string(),
      score: finite,
      text: z.string().optional(),
    }),
  ),
  latency_ms: finite,
  embedding_tokens: finite,
  cost_usd: finite.nullable(),
  error: z.object({ kind: z.string(), message: z.string() }).nullable(),
  ...retryFields,
});

/** The schema of one result line. */
export const resultLineSchema = z.object({
  system: z.string(),
  model: z.string().nullable(),
  question_id: z.string(),
  repeat: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  question: z.string(),
  kind: z.string().nullable(),
  tags: strings,
  answer: z.string().nullable(),
  /** Null for a question without checks (scored by retrieval alone). */
  passed: z.boolean().nullable(),
  answer_score: z.number().min(0).max(1).nullable(),
  failure_label: z.enum(FAILURE_LABELS).nullable(),
  checks: z.array(z.object({ type: z.string(), passed: z.boolean(), detail: z.string() })),
  error: stepError.nullable(),
  flags: z.object({
    best_effort: z.boolean(),
    budget_exhausted: z.boolean(),
    format_error: z.boolean(),
    answer_truncated: z.boolean().optional(),
  }),
  format_errors: count,
  cited: strings.optional(),
  usage,
  cost_usd: finite.nullable(),
  latency_ms: finite,
  retrieval: z.object({
    retrieved: z.boolean(),
    relevant: count,
    recall: finite.nullable(),
    mrr: finite.nullable(),
    metrics: metricMap.nullable(),
    ranking: strings,
    scores: numbers,
    depth: count.nullable().optional(),
  }),
  trajectory: z.object({
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

// The schema and the type describe the same line: each must be assignable to the other.
type Parsed = z.output<typeof resultLineSchema>;
const _toType: (line: Parsed) => QuestionResult = (line) => line;
const _toSchema: (line: QuestionResult) => Parsed = (line) => line;
void _toType;
void _toSchema;

/**
 * Checks one parsed line: the very object given, typed, or why it is not a
 * result ("repeat: Too small: expected number to be >=1"), naming the first
 * wrong field. The object is returned as it is (unknown keys kept, and the
 * identity `jsonl.ts` finds a line's bytes by).
 */
export function checkResultLine(
  value: unknown,
): { ok: true; line: QuestionResult } | { ok: false; why: string } {
  // The hand-written check accepts only what the schema accepts, at a fraction of its cost.
  if (surelyResultLine(value)) return { ok: true, line: value as QuestionResult };
  const parsed = resultLineSchema.safeParse(value);
  if (parsed.success) return { ok: true, line: value as QuestionResult };
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? issue.path.map(String).join(".") : "the line";
  return { ok: false, why: `${where}: ${issue.message}` };
}

/**
 * Reads line `number` of the results file at `path` (its text): the result,
 * or null for a blank line.
 *
 * @throws {RagbenchError} (code "data") naming the file and line that is not JSON or not a result.
 */
export function readResultLine(text: string, path: string, number: number): QuestionResult | null {
  if (text.trim() === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RagbenchError("data", `"${path}" line ${number} is not valid JSON.`);
  }
  const checked = checkResultLine(parsed);
  if (!checked.ok) {
    throw new RagbenchError(
      "data",
      `"${path}" line ${number} is not a ragbench result line (${checked.why}).`,
    );
  }
  return checked.line;
}
