/**
 * A hand-written check of a result line that accepts only what the zod
 * schema of `result_line.ts` accepts: the fast path of `checkResultLine`.
 * zod's walk of a whole line cost about as much as `JSON.parse` of it
 * (measured with `scripts/bench_million.ts`: 7.9 s of a 73 s `ragbench
 * report` of 100,000 lines, more than twice a bare parse pass over the
 * file), so lines are checked here first, and zod runs only on a line this
 * check does not accept, to say what is wrong (or to accept it after all:
 * this check may refuse more than zod, never less — a test holds it to
 * that on every mutation of real lines).
 *
 * It mirrors the schema field by field; a change to the schema needs the
 * same change here (the differential test fails until then).
 *
 * @module
 */

import { FAILURE_LABELS, TOOL_ERROR_KINDS } from "../types.ts";

type Obj = Record<string, unknown>;

const STEP_ERROR_KINDS = new Set(["model", "timeout", "retrieval", "system", "internal"]);
const TOOL_ERRORS = new Set<string>(TOOL_ERROR_KINDS);
const LABELS = new Set<string>(FAILURE_LABELS);

function isObject(v: unknown): v is Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function finite(v: unknown): boolean {
  return typeof v === "number" && Number.isFinite(v);
}

function finiteOrNull(v: unknown): boolean {
  return v === null || finite(v);
}

function stringOrNull(v: unknown): boolean {
  return v === null || typeof v === "string";
}

function booleanOrNull(v: unknown): boolean {
  return v === null || typeof v === "boolean";
}

function strings(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (typeof x !== "string") return false;
  return true;
}

function numbers(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (!finite(x)) return false;
  return true;
}

function usage(v: unknown): boolean {
  return isObject(v) && finite(v.input_tokens) && finite(v.output_tokens);
}

function retryFields(v: Obj): boolean {
  return (v.retries === undefined || finite(v.retries)) &&
    (v.http_statuses === undefined || numbers(v.http_statuses)) &&
    (v.backoff_ms === undefined || finite(v.backoff_ms));
}

function stepError(v: unknown): boolean {
  return isObject(v) && typeof v.kind === "string" && STEP_ERROR_KINDS.has(v.kind) &&
    typeof v.message === "string" && retryFields(v);
}

function toolStep(v: Obj): boolean {
  if (typeof v.tool !== "string" || typeof v.call_id !== "string" || v.args === undefined) {
    return false;
  }
  const r = v.result;
  if (!isObject(r) || typeof r.output !== "string" || typeof r.truncated !== "boolean") {
    return false;
  }
  if (!finiteOrNull(r.cost_usd) || !finite(r.latency_ms)) return false;
  const e = r.error;
  return e === null || (isObject(e) && typeof e.kind === "string" && TOOL_ERRORS.has(e.kind) &&
    typeof e.message === "string" && (e.detail === undefined || typeof e.detail === "string"));
}

function modelStep(v: Obj): boolean {
  if (!usage(v.usage) || !finiteOrNull(v.cost_usd) || !finite(v.latency_ms)) return false;
  if (!stringOrNull(v.content) || typeof v.final !== "boolean" || !Array.isArray(v.tool_calls)) {
    return false;
  }
  for (const call of v.tool_calls) {
    if (
      !isObject(call) || typeof call.id !== "string" || typeof call.name !== "string" ||
      typeof call.arguments !== "string"
    ) return false;
  }
  if (v.cached !== undefined && v.cached !== true) return false;
  if (v.recorded_usage !== undefined && !usage(v.recorded_usage)) return false;
  if (v.recorded_cost_usd !== undefined && !finiteOrNull(v.recorded_cost_usd)) return false;
  if (v.restored !== undefined) {
    if (!Array.isArray(v.restored)) return false;
    for (const r of v.restored) {
      if (
        !isObject(r) || typeof r.tool_call_id !== "string" || typeof r.framework_text !== "string"
      ) return false;
    }
  }
  return retryFields(v);
}

function retrievalStep(v: Obj): boolean {
  if (typeof v.retriever !== "string" || typeof v.query !== "string") return false;
  if (v.k !== undefined && !finite(v.k)) return false;
  if (!Array.isArray(v.results)) return false;
  for (const r of v.results) {
    if (
      !isObject(r) || typeof r.passage_id !== "string" || typeof r.doc_id !== "string" ||
      !finite(r.score)
    ) return false;
  }
  if (!finite(v.latency_ms) || !finite(v.embedding_tokens) || !finiteOrNull(v.cost_usd)) {
    return false;
  }
  const e = v.error;
  return e === null || (isObject(e) && typeof e.kind === "string" && typeof e.message === "string");
}

function step(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (v.type === "model") return modelStep(v);
  if (v.type === "tool") return toolStep(v);
  if (v.type === "retrieval") return retrievalStep(v);
  return false;
}

function metricMap(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  for (const x of Object.values(v)) if (!finite(x)) return false;
  return true;
}

/**
 * True only when `value` is a result line the schema accepts (false: let zod
 * decide, and say why).
 */
export function surelyResultLine(value: unknown): boolean {
  if (!isObject(value)) return false;
  const v = value;
  if (
    typeof v.system !== "string" || !stringOrNull(v.model) || typeof v.question_id !== "string" ||
    typeof v.question !== "string" || !stringOrNull(v.kind) || !strings(v.tags) ||
    !stringOrNull(v.answer) || !booleanOrNull(v.passed)
  ) return false;
  const repeat = v.repeat;
  if (!Number.isSafeInteger(repeat) || (repeat as number) < 1) return false;
  const score = v.answer_score;
  if (score !== null && !(typeof score === "number" && score >= 0 && score <= 1)) return false;
  const label = v.failure_label;
  if (label !== null && !(typeof label === "string" && LABELS.has(label))) return false;
  if (!Array.isArray(v.checks)) return false;
  for (const c of v.checks) {
    if (
      !isObject(c) || typeof c.type !== "string" || typeof c.passed !== "boolean" ||
      typeof c.detail !== "string"
    ) return false;
  }
  if (v.error !== null && !stepError(v.error)) return false;
  const flags = v.flags;
  if (
    !isObject(flags) || typeof flags.best_effort !== "boolean" ||
    typeof flags.budget_exhausted !== "boolean" || typeof flags.format_error !== "boolean" ||
    (flags.answer_truncated !== undefined && typeof flags.answer_truncated !== "boolean")
  ) return false;
  if (!finite(v.format_errors) || !usage(v.usage)) return false;
  if (!finiteOrNull(v.cost_usd) || !finite(v.latency_ms)) return false;
  const r = v.retrieval;
  if (
    !isObject(r) || typeof r.retrieved !== "boolean" || !finite(r.relevant) ||
    !finiteOrNull(r.recall) || !finiteOrNull(r.mrr) ||
    (r.metrics !== null && !metricMap(r.metrics)) || !strings(r.ranking) || !numbers(r.scores) ||
    (r.depth !== undefined && !finiteOrNull(r.depth))
  ) return false;
  const t = v.trajectory;
  if (
    !isObject(t) || !finite(t.tool_calls) || !finite(t.tool_errors) || !finite(t.searches) ||
    !finite(t.distinct_queries) || !finiteOrNull(t.steps_to_evidence) ||
    !finite(t.scored_searches) || !finite(t.redundant_searches) ||
    !booleanOrNull(t.required_tools_used)
  ) return false;
  if (!Array.isArray(v.steps)) return false;
  for (const s of v.steps) if (!step(s)) return false;
  return true;
}
