/**
 * The compact copy of a result line that readers of a results file keep
 * (`read_run.ts`): what the summaries, statistics, TREC files and the
 * report's tables read, and nothing else, so a run of a million results
 * fits in memory. Left out: the question and answer texts, model replies and
 * tool calls, tool arguments, outputs and data, retrieved passages, and
 * (unless asked for) the ranking. Kept: every scalar and score, checks,
 * flags, usage, retry fields, the numbers of the retrieval and trajectory
 * blocks, a tool step's tool, error, truncation, cost and latency, and a
 * model or retrieval step's type, retry fields and error (their texts,
 * tokens, cost and latency are left empty or zero: no reader of compact lines
 * reads them; the line's totals are kept).
 *
 * Values that repeat across lines are held once ({@link LineCompactor}):
 * names and ids (system, model, question, check type and detail, tool,
 * document ids), tag lists, flag sets, and retrieval-metric blocks with equal
 * numbers (all zeros for every line that found nothing); so are token
 * counts and trajectory numbers (found by a number made of their values,
 * cheaper than a text key) and a line's list of one check (found by
 * its detail): ~230 of the ~710 bytes a line held when each line had its own
 * (a `--mock` run's lines, ranking kept). Shared values are frozen: no
 * reader changes a line.
 *
 * @module
 */

import type {
  CheckResult,
  ModelStep,
  QuestionResult,
  RetrievalStep,
  RetryFields,
  Step,
  TrajectoryScores,
  Usage,
} from "../types.ts";

const NO_CALLS: never[] = Object.freeze([]) as never[];
const NO_ARGS = Object.freeze({});
const NO_STRINGS: string[] = Object.freeze([]) as unknown as string[];
const NO_NUMBERS: number[] = Object.freeze([]) as unknown as number[];
const NO_PASSAGES: never[] = Object.freeze([]) as never[];

/**
 * A model step as compact lines hold it: no reader of them reads a step's text, calls, tokens,
 * cost or latency (the line's own totals are kept), so those are empty or zero here.
 */
const MODEL_STEP: ModelStep = Object.freeze({
  type: "model",
  usage: Object.freeze({ input_tokens: 0, output_tokens: 0 }),
  cost_usd: 0,
  latency_ms: 0,
  content: null,
  tool_calls: NO_CALLS,
  final: false,
});

/** A retrieval step as compact lines hold it (see {@link MODEL_STEP}). */
const RETRIEVAL_STEP: RetrievalStep = Object.freeze({
  type: "retrieval",
  retriever: "",
  query: "",
  results: NO_PASSAGES,
  latency_ms: 0,
  embedding_tokens: 0,
  cost_usd: 0,
  error: null,
});

/** A step's retry fields (`rate_limit_summary.ts` reads them); null when it has none. */
function retryFields(step: Partial<RetryFields>): Partial<RetryFields> | null {
  if (
    step.retries === undefined && step.http_statuses === undefined &&
    step.backoff_ms === undefined && step.throttle_ms === undefined
  ) return null;
  const fields: Partial<RetryFields> = {};
  if (step.retries !== undefined) fields.retries = step.retries;
  if (step.http_statuses !== undefined) fields.http_statuses = step.http_statuses;
  if (step.backoff_ms !== undefined) fields.backoff_ms = step.backoff_ms;
  if (step.throttle_ms !== undefined) fields.throttle_ms = step.throttle_ms;
  return fields;
}

/** The eight sets of flags, by bits (best effort 1, budget exhausted 2, format error 4). */
const FLAGS = Array.from({ length: 8 }, (_, bits) =>
  Object.freeze({
    best_effort: (bits & 1) !== 0,
    budget_exhausted: (bits & 2) !== 0,
    format_error: (bits & 4) !== 0,
  }));

/** Distinct blocks of numbers kept for sharing; past it, new ones are kept per line. */
const MAX_SHARED_BLOCKS = 100_000;

/** Makes compact copies of lines, sharing what repeats between them. */
export class LineCompactor {
  #strings = new Map<string, string>();
  #blocks = new Map<string, object>();
  #usages = new Map<number | string, Usage>();
  #trajectories = new Map<number, TrajectoryScores[]>();
  #checkLists = new Map<string, CheckResult[][]>();
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
      // What readers of compact lines read of a model or retrieval step: its type, its retry
      // fields and a retrieval's error. A step with none of them is one shared object.
      const retry = retryFields(step);
      if (step.type === "model") return retry === null ? MODEL_STEP : { ...MODEL_STEP, ...retry };
      if (retry === null && step.error === null) return RETRIEVAL_STEP;
      return { ...RETRIEVAL_STEP, error: step.error, ...retry };
    });
    const retrieval = line.retrieval;
    const t = line.trajectory;
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
      checks: line.checks.length === 1 ? this.#oneCheck(line.checks[0]) : line.checks.map(
        (c): CheckResult => ({
          type: this.#string(c.type) as CheckResult["type"],
          passed: c.passed,
          detail: this.#string(c.detail),
        }),
      ),
      error: line.error,
      flags: FLAGS[
        (line.flags.best_effort ? 1 : 0) | (line.flags.budget_exhausted ? 2 : 0) |
        (line.flags.format_error ? 4 : 0)
      ],
      format_errors: line.format_errors,
      usage: this.#usage(line.usage),
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
      trajectory: this.#trajectory(t),
      steps,
    };
    if (line.cited !== undefined) compact.cited = line.cited.map((id) => this.#string(id));
    return compact;
  }

  /** One shared `usage` block for each pair of token counts. */
  #usage(usage: Usage): Usage {
    const i = usage.input_tokens, o = usage.output_tokens;
    // Both counts in one exact number while they are whole and under 2^26; else their text.
    const key = Number.isInteger(i) && Number.isInteger(o) && i >= 0 && o >= 0 && i < 2 ** 26 &&
        o < 2 ** 26
      ? i * 2 ** 26 + o
      : `${i},${o}`;
    const known = this.#usages.get(key);
    if (known !== undefined) return known;
    const value = Object.freeze({ input_tokens: i, output_tokens: o });
    if (this.#usages.size < MAX_SHARED_BLOCKS) this.#usages.set(key, value);
    return value;
  }

  /** One shared trajectory block for each set of its numbers (found by a hash of them). */
  #trajectory(t: TrajectoryScores): TrajectoryScores {
    let h = 0;
    for (
      const v of [
        t.tool_calls,
        t.tool_errors,
        t.searches,
        t.distinct_queries,
        t.steps_to_evidence ?? -1,
        t.scored_searches,
        t.redundant_searches,
        t.required_tools_used === null ? -1 : t.required_tools_used ? 1 : 0,
      ]
    ) h = (Math.imul(h, 31) + (v | 0)) | 0;
    let bucket = this.#trajectories.get(h);
    if (bucket === undefined) this.#trajectories.set(h, bucket = []);
    for (const k of bucket) {
      if (
        k.tool_calls === t.tool_calls && k.tool_errors === t.tool_errors &&
        k.searches === t.searches && k.distinct_queries === t.distinct_queries &&
        k.steps_to_evidence === t.steps_to_evidence && k.scored_searches === t.scored_searches &&
        k.redundant_searches === t.redundant_searches &&
        k.required_tools_used === t.required_tools_used
      ) return k;
    }
    const value: TrajectoryScores = Object.freeze({
      tool_calls: t.tool_calls,
      tool_errors: t.tool_errors,
      searches: t.searches,
      distinct_queries: t.distinct_queries,
      steps_to_evidence: t.steps_to_evidence,
      scored_searches: t.scored_searches,
      redundant_searches: t.redundant_searches,
      required_tools_used: t.required_tools_used,
    });
    // Past the cap (or a bucket of colliding hashes), each line its own.
    if (this.#trajectories.size < MAX_SHARED_BLOCKS && bucket.length < 8) bucket.push(value);
    return value;
  }

  /**
   * One shared list for each check that is a line's only one (the same question's check,
   * passed or not, across systems), found by its detail text (held once already).
   */
  #oneCheck(c: CheckResult): CheckResult[] {
    const detail = this.#string(c.detail);
    let lists = this.#checkLists.get(detail);
    if (lists === undefined) this.#checkLists.set(detail, lists = []);
    for (const list of lists) {
      if (list[0].type === c.type && list[0].passed === c.passed) return list;
    }
    const list = Object.freeze([
      Object.freeze({
        type: this.#string(c.type) as CheckResult["type"],
        passed: c.passed,
        detail,
      }),
    ]) as CheckResult[];
    // A detail shared by many kinds of check: past a few, each line its own.
    if (lists.length < 4) lists.push(list);
    return list;
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
