/**
 * The compact copy of a result line that readers of a results file keep
 * (`read_run.ts`): what the summaries, statistics, TREC files and the
 * report's tables read, and nothing else, so a run of a million results
 * fits in memory. Left out: the question and answer texts, model replies and
 * tool calls, tool arguments, outputs and data, retrieved passages, and
 * (unless asked for) the ranking. Kept: every scalar and score, checks,
 * flags, usage, retry fields, the numbers of the retrieval and trajectory
 * blocks, and each step's type, tool, error, truncation, cost and latency.
 *
 * Values that repeat across lines are held once ({@link LineCompactor}):
 * names and ids (system, model, question, check type and detail, tool,
 * document ids), tag lists, flag sets, token counts, and retrieval-metric and
 * trajectory blocks with equal numbers (all zeros for every line that found
 * nothing).
 * Shared values are frozen: no reader changes a line.
 *
 * @module
 */

import type { CheckResult, QuestionResult, Step } from "../types.ts";

const NO_CALLS: never[] = Object.freeze([]) as never[];
const NO_ARGS = Object.freeze({});
const NO_STRINGS: string[] = Object.freeze([]) as unknown as string[];
const NO_NUMBERS: number[] = Object.freeze([]) as unknown as number[];
const NO_PASSAGES: never[] = Object.freeze([]) as never[];

/** Distinct blocks of numbers kept for sharing; past it, new ones are kept per line. */
const MAX_SHARED_BLOCKS = 100_000;

/** Makes compact copies of lines, sharing what repeats between them. */
export class LineCompactor {
  #strings = new Map<string, string>();
  #blocks = new Map<string, object>();
  #keepRanking: boolean;

  /** `ranking`: keep each line's ranking and scores (the TREC run files read them). */
  constructor(options: { ranking?: boolean } = {}) {
    this.#keepRanking = options.ranking ?? false;
  }

  /**
   * A compact copy of `line` (a new object: the parsed line, most of the memory, can be
   * collected).
   */
  compact(line: QuestionResult): QuestionResult {
    const steps: Step[] = line.steps.map((step): Step => {
      if (step.type === "tool") {
        const { output: _output, data: _data, ...result } = step.result;
        return {
          type: "tool",
          tool: this.#string(step.tool),
          call_id: "",
          args: NO_ARGS,
          result: { ...result, output: "" },
        };
      }
      if (step.type === "model") {
        return { ...step, usage: this.#shared(step.usage), content: null, tool_calls: NO_CALLS };
      }
      return { ...step, retriever: this.#string(step.retriever), query: "", results: NO_PASSAGES };
    });
    const retrieval = line.retrieval;
    // Every field named (no spread): the copies share one hidden class, in V8's compact form.
    const compact: QuestionResult = {
      system: this.#string(line.system),
      model: line.model === null ? null : this.#string(line.model),
      question_id: this.#string(line.question_id),
      repeat: line.repeat,
      question: "",
      kind: line.kind === null ? null : this.#string(line.kind),
      tags: line.tags.length === 0 ? NO_STRINGS : this.#shared(line.tags),
      answer: line.answer === null ? null : "",
      passed: line.passed,
      answer_score: line.answer_score,
      failure_label: line.failure_label,
      checks: line.checks.map((c): CheckResult => ({
        type: this.#string(c.type) as CheckResult["type"],
        passed: c.passed,
        detail: this.#string(c.detail),
      })),
      error: line.error,
      flags: this.#shared(line.flags),
      format_errors: line.format_errors,
      usage: this.#shared(line.usage),
      cost_usd: line.cost_usd,
      latency_ms: line.latency_ms,
      retrieval: {
        retrieved: retrieval.retrieved,
        relevant: retrieval.relevant,
        recall: retrieval.recall,
        mrr: retrieval.mrr,
        metrics: retrieval.metrics === null ? null : this.#shared(retrieval.metrics),
        ranking: this.#keepRanking && retrieval.ranking.length
          ? retrieval.ranking.map((id) => this.#string(id))
          : NO_STRINGS,
        scores: this.#keepRanking && retrieval.scores?.length ? retrieval.scores : NO_NUMBERS,
        depth: retrieval.depth,
      },
      trajectory: this.#shared(line.trajectory),
      steps,
    };
    if (line.cited !== undefined) compact.cited = line.cited.map((id) => this.#string(id));
    return compact;
  }

  #string(text: string): string;
  #string(text: string | undefined): string | undefined;
  #string(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    const known = this.#strings.get(text);
    if (known !== undefined) return known;
    this.#strings.set(text, text);
    return text;
  }

  /** One frozen copy of each distinct flat value (its JSON text the key); past the cap, `value`. */
  #shared<T extends object>(value: T): T {
    const key = JSON.stringify(value);
    const known = this.#blocks.get(key);
    if (known !== undefined) return known as T;
    if (this.#blocks.size >= MAX_SHARED_BLOCKS) return value;
    const frozen = Object.freeze(value);
    this.#blocks.set(key, frozen);
    return frozen;
  }
}
