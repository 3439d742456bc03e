/**
 * Progress of a run on stderr, in one of four modes:
 * - `live` (stderr is a terminal): one line, redrawn in place after each
 *   result — done/total, pass rate so far, errors, dollars spent, elapsed
 *   time and an estimate of the time left;
 * - `periodic` (stderr is a file or pipe, as in CI): the same line printed
 *   each time another tenth of the run is done, or {@link PERIODIC_MS} after
 *   the last one, whichever comes first;
 * - `verbose` (`--verbose`): a line per finished question;
 * - `quiet` (`--quiet`): nothing.
 *
 * The estimate is elapsed / done × remaining (questions run at a steady pace
 * under a fixed concurrency). Pure apart from the injected writer and clock.
 *
 * @module
 */

import type { QuestionResult } from "../types.ts";

/** How progress is shown. */
export type ProgressMode = "live" | "periodic" | "verbose" | "quiet";

/** At most this long between two periodic lines, in milliseconds. */
export const PERIODIC_MS = 30_000;

/** Where progress goes. */
export interface ProgressSink {
  /** Cut-off of the nDCG a `--verbose` line shows for a line without answer checks. */
  ndcgK?: number;
  /** `--mock`: the dollars are simulated, and the status line says so. */
  simulated?: boolean;
  /** Prints a whole line. */
  line(text: string): void;
  /** Redraws the live line (no newline); only used in `live` mode. */
  redraw?(text: string): void;
  /** Milliseconds since some fixed origin. */
  now(): number;
}

/** Receives results as they finish. */
export interface Progress {
  onResult(result: QuestionResult, progress: { done: number; total: number }): void;
  /** Ends the live line (call before printing anything else). */
  finish(): void;
}

/** Creates the progress display for `mode`. */
export function createProgress(mode: ProgressMode, sink: ProgressSink): Progress {
  const started = sink.now();
  let passed = 0;
  let unchecked = 0;
  let errors = 0;
  let spent = 0;
  let unknownCost = false;
  let lastPrinted = started;
  let lastTenth = 0;
  let drawn = false;
  return {
    onResult(result, { done, total }) {
      if (result.error) errors++;
      else if (result.passed) passed++;
      else if (result.passed === null) unchecked++;
      if (result.cost_usd === null) unknownCost = true;
      else spent += result.cost_usd;
      if (mode === "quiet") return;
      if (mode === "verbose") {
        sink.line(questionLine(result, done, total, sink.ndcgK ?? 10));
        return;
      }
      const now = sink.now();
      const text = statusLine({
        done,
        total,
        passed,
        checked: done - unchecked,
        errors,
        spent,
        unknownCost,
        simulated: sink.simulated ?? false,
        elapsedMs: now - started,
      });
      if (mode === "live" && sink.redraw) {
        sink.redraw(text);
        drawn = true;
        return;
      }
      const tenth = Math.floor((done * 10) / total);
      if (tenth > lastTenth || now - lastPrinted >= PERIODIC_MS || done === total) {
        lastTenth = tenth;
        lastPrinted = now;
        sink.line(text);
      }
    },
    finish() {
      if (drawn) sink.line("");
      drawn = false;
    },
  };
}

/**
 * The status line: `[42/84] 50 % · pass 38/42 · errors 0 · $0.0123 · 12 s · about 12 s left`.
 * The pass count is over the lines with answer checks (`checked`, default all done). The
 * dollars read `$0.0123 + ?` once a line's cost is unknown (a model with no known price),
 * and `$0.0123 simulated` under `--mock`.
 */
export function statusLine(s: {
  done: number;
  total: number;
  passed: number;
  checked?: number;
  errors: number;
  spent: number;
  unknownCost?: boolean;
  simulated?: boolean;
  elapsedMs: number;
}): string {
  const width = String(s.total).length;
  const parts = [
    `[${String(s.done).padStart(width)}/${s.total}] ${Math.floor((s.done * 100) / s.total)} %`,
    `pass ${s.passed}/${s.checked ?? s.done}`,
    `errors ${s.errors}`,
    `$${s.spent.toFixed(4)}${s.unknownCost ? " + ?" : ""}${s.simulated ? " simulated" : ""}`,
    duration(s.elapsedMs),
  ];
  if (s.done < s.total) {
    parts.push(`about ${duration((s.elapsedMs / s.done) * (s.total - s.done))} left`);
  }
  return parts.join(" · ");
}

/**
 * The `--verbose` line of one result: pass, fail, error, or "retrieved" for
 * a line without answer checks (shown with its nDCG@k).
 */
export function questionLine(
  result: QuestionResult,
  done: number,
  total: number,
  ndcgK = 10,
): string {
  const width = String(total).length;
  const mark = result.error
    ? `error (${result.error.kind})`
    : result.passed === null
    ? "retrieved"
    : result.passed
    ? "pass"
    : "fail";
  const ndcg = result.retrieval?.metrics?.[`ndcg@${ndcgK}`];
  const score = typeof result.answer_score === "number"
    ? `score ${result.answer_score.toFixed(2)}`
    : ndcg !== undefined && ndcg !== null
    ? `nDCG@${ndcgK} ${ndcg.toFixed(3)}`
    : "no checks";
  return `[${
    String(done).padStart(width)
  }/${total}] ${result.system} ${result.question_id}#${result.repeat}: ${mark}, ${score}, ${
    Math.round(result.latency_ms)
  } ms`;
}

/** `850 ms`, `12 s`, `3 min 05 s`, `2 h 03 min`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "-";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}
