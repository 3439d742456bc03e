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
 * Once the runner has said how many questions each system has
 * ({@link Progress.onPlan}), the estimate of the time left weighs each
 * system's own pace (eta.ts), the status line names the systems still
 * running, and a line says when a system has finished (live and periodic
 * modes). Without it the estimate is elapsed / done × remaining. Pure apart
 * from the injected writer and clock.
 *
 * @module
 */

import type { QuestionResult } from "../types.ts";
import { newPace, remainingMs, type SystemPace } from "./eta.ts";
import { plural } from "../util/plural.ts";

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
  /** Questions run at once (the time-left estimate shares the latencies among them; default 1). */
  concurrency?: number;
}

/** Systems named in the status line before "+N more". */
const SYSTEMS_SHOWN = 2;

/** Receives results as they finish. */
export interface Progress {
  /** How many questions (× repeats) each system has in this run, in plan order. */
  onPlan?(jobs: ReadonlyMap<string, number>): void;
  /** A question of `system` has started. */
  onStart?(system: string): void;
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
  const paces = new Map<string, SystemPace & { passed: number; checked: number; errors: number }>();
  /** Prints a whole line; in live mode, over the live line, which is drawn again after it. */
  const say = (text: string) => {
    if (mode === "live" && sink.redraw && drawn) {
      sink.redraw(text);
      sink.line("");
      drawn = false;
      return;
    }
    sink.line(text);
  };
  return {
    onPlan(jobs) {
      for (const [system, count] of jobs) {
        paces.set(system, { ...newPace(count), passed: 0, checked: 0, errors: 0 });
      }
    },
    onStart(system) {
      paces.get(system)?.running.push(sink.now());
    },
    onResult(result, { done, total }) {
      if (result.error) errors++;
      else if (result.passed) passed++;
      else if (result.passed === null) unchecked++;
      if (result.cost_usd === null) unknownCost = true;
      else spent += result.cost_usd;
      const pace = paces.get(result.system);
      if (pace) {
        pace.done++;
        pace.latencyMs += result.latency_ms;
        pace.running.shift();
        if (result.error) pace.errors++;
        else if (result.passed !== null) {
          pace.checked++;
          if (result.passed) pace.passed++;
        }
      }
      if (mode === "quiet") return;
      if (mode === "verbose") {
        sink.line(questionLine(result, done, total, sink.ndcgK ?? 10));
        return;
      }
      const now = sink.now();
      if (pace && pace.done === pace.total) say(systemDoneLine(result.system, pace));
      const left = paces.size === 0 ? undefined : remainingMs(paces.values(), {
        concurrency: sink.concurrency ?? 1,
        elapsedMs: now - started,
        now,
      });
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
        ...(left === undefined ? {} : { leftMs: left }),
        running: runningSystems(paces),
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

/** `rag_bm25 done: 21 questions · pass 13/21 · errors 0` (a line, when a system has finished). */
export function systemDoneLine(
  system: string,
  pace: { total: number; passed: number; checked: number; errors: number },
): string {
  const parts = [`${system} done: ${plural(pace.total, "question")}`];
  if (pace.checked > 0) parts.push(`pass ${pace.passed}/${pace.checked}`);
  parts.push(`errors ${pace.errors}`);
  return parts.join(" · ");
}

/**
 * The systems started and not finished, furthest behind first, with what
 * they have done: `code_agent 5/21, grep_agent 18/21`.
 */
function runningSystems(paces: ReadonlyMap<string, SystemPace>): string[] {
  const open = [...paces].filter(([, p]) => p.done < p.total && (p.done > 0 || p.running.length));
  open.sort(([, a], [, b]) => a.done / a.total - b.done / b.total);
  return open.map(([name, p]) => `${name} ${p.done}/${p.total}`);
}

/**
 * The status line: `[42/84] 50 % · pass 38/42 · errors 0 · $0.0123 · 12 s · about 12 s left`,
 * then the systems still running (`· code_agent 5/21, grep_agent 18/21 +1 more`).
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
  /** The time left, when known better than elapsed / done × remaining (eta.ts). */
  leftMs?: number;
  /** The systems still running, as `name done/total`. */
  running?: readonly string[];
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
    const left = s.leftMs ?? (s.elapsedMs / s.done) * (s.total - s.done);
    parts.push(`about ${duration(left)} left`);
  }
  const running = s.running ?? [];
  if (s.done < s.total && running.length > 0) {
    const more = running.length - SYSTEMS_SHOWN;
    parts.push(`${running.slice(0, SYSTEMS_SHOWN).join(", ")}${more > 0 ? ` +${more} more` : ""}`);
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
