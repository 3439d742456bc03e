/**
 * The x axes of the report's scatter plots: linear from 0 (cost, where 0 is
 * a real value: a system that calls no priced model), or logarithmic
 * (latency, which spans orders of magnitude between a retrieval that takes
 * a tenth of a millisecond and an agent that takes seconds; on a linear
 * axis every fast system sits on top of the others at 0). A log axis runs
 * from the decade at or below the smallest positive value to the decade at
 * or above the largest, with a tick at every decade (and at 2 and 5 times
 * it when the axis spans at most two decades); a value of 0 or less has no
 * place on it and is drawn at its left end, said in its tooltip.
 *
 * @module
 */

/** An axis: where a value goes (0 = left end, 1 = right end) and its ticks. */
export interface Axis {
  /** The position of `value` from 0 to 1. */
  position(value: number): number;
  ticks: ReadonlyArray<{ value: number; label: string }>;
  /** Logarithmic. */
  log: boolean;
  /** Values this axis cannot show where they are (≤ 0 on a log axis) are drawn at its left end. */
  below(value: number): boolean;
}

/** A linear axis from 0 to a round number at least 8 % above `max`, with five ticks. */
export function linearAxis(values: readonly number[], format: (x: number) => string): Axis {
  const maxX = Math.max(0, ...values) || 1;
  const top = niceCeiling(maxX * 1.08);
  return {
    position: (x) => Math.min(1, Math.max(0, x / top)),
    ticks: [0, 1, 2, 3, 4].map((i) => ({ value: (top * i) / 4, label: format((top * i) / 4) })),
    log: false,
    below: (x) => x < 0,
  };
}

/** A base-10 logarithmic axis over the positive `values` (see the module documentation). */
export function logAxis(values: readonly number[], format: (x: number) => string): Axis {
  const positive = values.filter((v) => v > 0 && Number.isFinite(v));
  const low = positive.length ? Math.floor(Math.log10(Math.min(...positive))) : -1;
  let high = positive.length ? Math.ceil(Math.log10(Math.max(...positive))) : 0;
  if (high <= low) high = low + 1;
  const steps = high - low <= 2 ? [1, 2, 5] : [1];
  const ticks: Array<{ value: number; label: string }> = [];
  for (let e = low; e <= high; e++) {
    for (const step of steps) {
      if (e === high && step > 1) break;
      // 10 ** -1 is 0.1 exactly, where 0.1 * 1 built up from 10 ** 0 / 10 may not be.
      const value = e < 0 ? step / 10 ** -e : step * 10 ** e;
      ticks.push({ value, label: format(value) });
    }
  }
  return {
    position: (x) => x > 0 ? Math.min(1, Math.max(0, (Math.log10(x) - low) / (high - low))) : 0,
    ticks,
    log: true,
    below: (x) => !(x > 0),
  };
}

/** Milliseconds as a log-axis tick: "0.1", "2", "500", "1 s", "20 s". */
export function formatMs(ms: number): string {
  if (ms >= 1000) return `${trim(ms / 1000)} s`;
  return trim(ms);
}

/** 1, 2 or 5 times a power of ten, at least `x`. */
function niceCeiling(x: number): number {
  const power = 10 ** Math.floor(Math.log10(x));
  for (const step of [1, 2, 5, 10]) if (step * power >= x) return step * power;
  return 10 * power;
}

function trim(x: number): string {
  return String(Number(x.toPrecision(3)));
}
