/**
 * The cells that keep a run with repeats honest in the console and
 * `summary.md`: a system's line count is questions × repeats, so the
 * "questions" cell shows both (`8 × 3`), and the flip rate (how often a
 * question's verdict changed between repeats) gets a column of its own.
 *
 * @module
 */

import type { SystemStats } from "../score/comparison.ts";

/**
 * The "questions" cell for a system with `lines` result lines: the distinct
 * questions the statistics counted, times the repeats when there are several
 * (`8 × 3`; `8 (23 runs)` when the repeats are uneven), else the line count.
 */
export function questionsCell(lines: number, stats: SystemStats | undefined): string {
  const questions = stats?.questions ?? 0;
  if (questions === 0 || lines <= questions) return String(lines);
  return lines % questions === 0
    ? `${questions} × ${lines / questions}`
    : `${questions} (${lines} runs)`;
}

/** Whether any system has a flip rate (a run with repeats, scored on answers). */
export function hasFlipRate(stats: readonly SystemStats[] | undefined): boolean {
  return (stats ?? []).some((s) => s.flip_rate !== null);
}

/** A flip rate as a percentage (`12.5 %`), `-` when there is none. */
export function flipRateCell(stats: SystemStats | undefined): string {
  const rate = stats?.flip_rate ?? null;
  return rate === null ? "-" : `${(rate * 100).toFixed(1)} %`;
}
