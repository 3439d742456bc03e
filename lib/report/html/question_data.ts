/**
 * The per-question data embedded in `report.html`: every result line,
 * trimmed so a 10,000-line run stays a page a browser opens (long answers,
 * tool outputs and arguments are cut, with the cut marked; the model reply
 * that is the answer is not repeated; at most
 * {@link MAX_STEPS} steps a line are kept). Question texts are stored once,
 * not once per system. The page's script renders the rows it shows from
 * this data, a page at a time.
 *
 * @module
 */

import type { Step } from "../../types.ts";

/** Longest answer kept, in characters. */
export const MAX_ANSWER_CHARS = 800;
/** Longest tool output, model reply or argument text kept, in characters. */
export const MAX_STEP_CHARS = 400;
/** Most steps kept per line. */
export const MAX_STEPS = 40;

/** The fields of a result line the report reads (a `per_question_results.jsonl` line). */
export interface ReportLine {
  system: string;
  question_id: string;
  repeat: number;
  question: string;
  kind: string | null;
  tags: readonly string[];
  answer: string | null;
  passed: boolean | null;
  answer_score: number | null;
  checks: ReadonlyArray<{ type: string; passed: boolean; detail: string }>;
  error: { kind: string; message: string } | null;
  latency_ms: number;
  cost_usd: number;
  failure_label?: string | null;
  steps: readonly Step[];
}

/** A trimmed step, as the page's script reads it. */
export type EmbeddedStep =
  | { k: "model"; text: string; calls: string[]; final: boolean; ms: number }
  | { k: "tool"; tool: string; args: string; out: string; err: string | null; ms: number }
  | { k: "retrieval"; query: string; hits: string[]; err: string | null; ms: number };

/** One trimmed line. */
export interface EmbeddedLine {
  /** Index into `systems`. */
  s: number;
  /** Index into `questions`. */
  q: number;
  r: number;
  kind: string;
  tags: readonly string[];
  status: "pass" | "fail" | "error" | "unscored";
  score: number | null;
  answer: string;
  label: string | null;
  ms: number;
  cost: number;
  error: string | null;
  checks: Array<[string, boolean, string]>;
  steps: EmbeddedStep[];
  /** Steps left out past {@link MAX_STEPS}. */
  more: number;
}

/** Everything the page's script reads. */
export interface EmbeddedData {
  systems: string[];
  /** `[id, text]` of each question, in first-seen order. */
  questions: Array<[string, string]>;
  lines: EmbeddedLine[];
}

/** Builds the embedded data from result lines. */
export function embedLines(systems: readonly string[], lines: readonly ReportLine[]): EmbeddedData {
  const systemIndex = new Map(systems.map((s, i) => [s, i]));
  const questionIndex = new Map<string, number>();
  const questions: Array<[string, string]> = [];
  const out: EmbeddedLine[] = [];
  for (const line of lines) {
    const s = systemIndex.get(line.system);
    if (s === undefined) continue;
    let q = questionIndex.get(line.question_id);
    if (q === undefined) {
      q = questions.length;
      questionIndex.set(line.question_id, q);
      questions.push([line.question_id, cut(line.question, MAX_ANSWER_CHARS)]);
    }
    out.push({
      s,
      q,
      r: line.repeat,
      kind: line.kind ?? "",
      tags: line.tags,
      status: line.error
        ? "error"
        : line.answer_score === null
        ? "unscored"
        : line.passed
        ? "pass"
        : "fail",
      score: line.answer_score,
      answer: cut(line.answer ?? "", MAX_ANSWER_CHARS),
      label: line.failure_label ?? null,
      ms: Math.round(line.latency_ms * 10) / 10,
      cost: line.cost_usd,
      error: line.error ? `${line.error.kind}: ${cut(line.error.message, MAX_STEP_CHARS)}` : null,
      checks: line.checks.map((c) => [c.type, c.passed, cut(c.detail, MAX_STEP_CHARS)]),
      steps: line.steps.slice(0, MAX_STEPS).map((step) => embedStep(step, line.answer)),
      more: Math.max(0, line.steps.length - MAX_STEPS),
    });
  }
  return { systems: [...systems], questions, lines: out };
}

function embedStep(step: Step, answer: string | null): EmbeddedStep {
  if (step.type === "tool") {
    const { result } = step;
    return {
      k: "tool",
      tool: step.tool,
      args: cut(
        typeof step.args === "string" ? step.args : JSON.stringify(step.args),
        MAX_STEP_CHARS,
      ),
      out: cut(result.output, MAX_STEP_CHARS),
      err: result.error
        ? `${result.error.kind}: ${cut(result.error.message, MAX_STEP_CHARS)}`
        : null,
      ms: round1(result.latency_ms),
    };
  }
  if (step.type === "retrieval") {
    return {
      k: "retrieval",
      query: cut(step.query, MAX_STEP_CHARS),
      hits: step.results.slice(0, 20).map((h) => `${h.passage_id} (${h.score})`),
      err: step.error ? `${step.error.kind}: ${cut(step.error.message, MAX_STEP_CHARS)}` : null,
      ms: round1(step.latency_ms),
    };
  }
  return {
    k: "model",
    // The reply that is the answer is shown once, as the answer.
    text: step.content === answer && answer
      ? "(the answer, shown above)"
      : cut(step.content ?? "", MAX_STEP_CHARS),
    calls: step.tool_calls.map((c) => cut(`${c.name}(${c.arguments})`, MAX_STEP_CHARS)),
    final: step.final,
    ms: round1(step.latency_ms),
  };
}

function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * `text` cut to `max` characters, with the cut marked. The mark names no
 * count, so cutting an already cut text (see `read_run.ts`) reads the same.
 */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [cut; the full text is in the JSONL]`;
}
