/**
 * The per-question data embedded in `report.html`: every result line,
 * trimmed so a 10,000-line run stays a page a browser opens (long answers,
 * tool outputs and arguments are cut, with the cut marked; the model reply
 * that is the answer is not repeated; at most
 * {@link MAX_STEPS} steps a line are kept). Question texts are stored once,
 * not once per system. A line with retrieval metrics also carries its nDCG
 * at the run's headline cut-off, so the page can show each question's
 * retrieval quality. The page's script renders the rows it shows from this
 * data, a page at a time.
 *
 * @module
 */

import { metricValue } from "../../score/comparison.ts";
import type { Step } from "../../types.ts";

/** Longest answer kept, in characters. */
export const MAX_ANSWER_CHARS = 800;
/** Longest tool output, model reply or argument text kept, in characters. */
export const MAX_STEP_CHARS = 400;
/** Most steps kept per line. */
export const MAX_STEPS = 40;
/**
 * Characters of embedded data after which further lines are embedded as
 * rows only (status, score, the start of the answer; no checks or steps),
 * so a 100,000-line run still gives a page a browser opens. A 10,000-line
 * run of ordinary lines stays under it.
 */
export const FULL_DETAIL_CHARS = 16_000_000;
/** Lines per piece of {@link LineEmbedder.chunks}. */
export const CHUNK_LINES = 2000;
/** Longest answer kept for a row-only line. */
export const ROW_ANSWER_CHARS = 160;

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
  /** Null when unknown (a model with no known price). */
  cost_usd: number | null;
  failure_label?: string | null;
  steps: readonly Step[];
  /** The line's retrieval metrics (`ndcg@10`, ...), when it was scored on evidence. */
  retrieval?: { retrieved?: boolean; metrics: Record<string, number> | null };
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
  /** nDCG at the headline cut-off; absent when the line has none. */
  nd?: number;
  /** Set when the line made no retrieval (its `nd` is then 0, which counts only for a system that retrieves). */
  nr?: true;
  answer: string;
  label: string | null;
  ms: number;
  cost: number | null;
  error: string | null;
  checks: Array<[string, boolean, string]>;
  steps: EmbeddedStep[];
  /** Steps left out past {@link MAX_STEPS}. */
  more: number;
  /** Embedded as a row only, past {@link FULL_DETAIL_CHARS}: no checks or steps. */
  rowOnly?: true;
}

/** Everything the page's script reads. */
export interface EmbeddedData {
  systems: string[];
  /** `[id, text]` of each question, in first-seen order. */
  questions: Array<[string, string]>;
  lines: EmbeddedLine[];
}

/** What the report page reads its per-question data from (built in memory or streamed). */
export interface EmbeddedSource {
  /** The nDCG the lines carry (`ndcg@10`); null when no line has it. */
  readonly ndcg: string | null;
  /** The whole {@link EmbeddedData} as JSON text, in pieces of about {@link CHUNK_LINES} lines. */
  chunks(): Iterable<string>;
}

/** Where a line goes in the embedded data: its system's and question's numbers, its nDCG. */
export interface LinePlace {
  s: number;
  q: number;
  nd: number | null;
}

/**
 * The systems and questions of the embedded data, numbered in first-seen
 * order (question texts kept once, cut), and whether a line carries the
 * headline nDCG: everything the data holds apart from its lines.
 */
export class EmbedCatalogue {
  #systems = new Map<string, number>();
  #questions = new Map<string, number>();
  #questionList: Array<[string, string]> = [];
  #ndcg: string | null;
  #hasNdcg = false;

  /** Starts with `systems` numbered in this order; `ndcg` names the nDCG lines carry. */
  constructor(systems: readonly string[], options: { ndcg?: string }) {
    for (const s of systems) this.#systems.set(s, this.#systems.size);
    this.#ndcg = options.ndcg ?? null;
  }

  /** The nDCG the lines carry (`ndcg@10`); null when no line noted so far has it. */
  get ndcg(): string | null {
    return this.#hasNdcg ? this.#ndcg : null;
  }

  /** Numbers `line`'s system and question when they are new; returns its place. */
  note(line: ReportLine): LinePlace {
    let s = this.#systems.get(line.system);
    if (s === undefined) this.#systems.set(line.system, s = this.#systems.size);
    let q = this.#questions.get(line.question_id);
    if (q === undefined) {
      q = this.#questionList.length;
      this.#questions.set(line.question_id, q);
      this.#questionList.push([line.question_id, cut(line.question, MAX_ANSWER_CHARS)]);
    }
    const nd = this.#ndcg === null ? null : metricValue({
      answer_score: null,
      ...(line.retrieval ? { retrieval: line.retrieval } : {}),
    }, this.#ndcg);
    if (nd !== null && line.retrieval?.retrieved) this.#hasNdcg = true;
    return { s, q, nd };
  }

  /** The data's JSON text up to its first line. */
  head(): string {
    return `{"systems":${JSON.stringify([...this.#systems.keys()])},"questions":${
      JSON.stringify(this.#questionList)
    },"lines":[`;
  }
}

/**
 * One line of the embedded data as JSON text; `rowOnly` past
 * {@link FULL_DETAIL_CHARS} of data before it.
 */
export function embedLine(line: ReportLine, place: LinePlace, rowOnly: boolean): string {
  const { s, q, nd } = place;
  const embedded: EmbeddedLine = {
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
    ...(nd === null ? {} : { nd: Math.round(nd * 10_000) / 10_000 }),
    ...(nd !== null && !line.retrieval?.retrieved ? { nr: true as const } : {}),
    answer: cut(line.answer ?? "", rowOnly ? ROW_ANSWER_CHARS : MAX_ANSWER_CHARS),
    label: line.failure_label ?? null,
    ms: round1(line.latency_ms),
    cost: line.cost_usd,
    error: line.error ? `${line.error.kind}: ${cut(line.error.message, MAX_STEP_CHARS)}` : null,
    checks: rowOnly
      ? []
      : line.checks.map((c) => [c.type, c.passed, cut(c.detail, MAX_STEP_CHARS)]),
    steps: rowOnly ? [] : line.steps.slice(0, MAX_STEPS).map((s) => embedStep(s, line.answer)),
    more: rowOnly ? line.steps.length : Math.max(0, line.steps.length - MAX_STEPS),
    ...(rowOnly ? { rowOnly: true as const } : {}),
  };
  return JSON.stringify(embedded);
}

/**
 * Builds the embedded data line by line, keeping each line only as its JSON
 * text. For lines held in memory; `streamed_data.ts` builds the same data
 * from a results file without keeping the lines' text.
 */
export class LineEmbedder implements EmbeddedSource {
  #catalogue: EmbedCatalogue;
  #lines: string[] = [];
  #chars = 0;

  /**
   * Starts with `systems` numbered in this order (more are added as lines
   * name them); `ndcg` names the nDCG each line carries (`ndcg@10`), when
   * lines have it.
   */
  constructor(systems: readonly string[] = [], options: { ndcg?: string } = {}) {
    this.#catalogue = new EmbedCatalogue(systems, options);
  }

  /** The nDCG the lines carry (`ndcg@10`); null when no line added so far has it. */
  get ndcg(): string | null {
    return this.#catalogue.ndcg;
  }

  /** Lines added so far. */
  get size(): number {
    return this.#lines.length;
  }

  /** Adds one result line; returns its index. */
  add(line: ReportLine): number {
    this.#lines.push("");
    this.replace(this.#lines.length - 1, line);
    return this.#lines.length - 1;
  }

  /** Puts `line` in place of the line at `index` (a later result for the same job). */
  replace(index: number, line: ReportLine): void {
    const place = this.#catalogue.note(line);
    const json = embedLine(line, place, this.#chars >= FULL_DETAIL_CHARS);
    this.#chars += json.length - this.#lines[index].length;
    this.#lines[index] = json;
  }

  /** The whole {@link EmbeddedData} as JSON text. */
  toJson(): string {
    return [...this.chunks()].join("");
  }

  /** The same JSON text in pieces of about {@link CHUNK_LINES} lines each. */
  *chunks(): Generator<string> {
    yield this.#catalogue.head();
    for (let i = 0; i < this.#lines.length; i += CHUNK_LINES) {
      yield (i ? "," : "") + this.#lines.slice(i, i + CHUNK_LINES).join(",");
    }
    yield "]}";
  }
}

/** The embedded data of `lines` (a convenience over {@link LineEmbedder}). */
export function embedLines(
  systems: readonly string[],
  lines: readonly ReportLine[],
  options: { ndcg?: string } = {},
): EmbeddedData {
  const known = new Set(systems);
  const embedder = new LineEmbedder(systems, options);
  for (const line of lines) if (known.has(line.system)) embedder.add(line);
  return JSON.parse(embedder.toJson());
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
