/**
 * What a difference between two systems proves: bootstrap confidence
 * intervals, paired tests and the minimum detectable difference. Pure
 * functions over per-question values (repeats already averaged within a
 * question), deterministic: every random draw comes from a PRNG seeded with
 * {@link STATS_SEED}, so a run's report is the same every time.
 *
 * Definitions (n = questions; for paired functions, the questions both
 * systems ran, with d_i = a_i − b_i):
 * - **Bootstrap CI** of a mean: {@link BOOTSTRAP_RESAMPLES} resamples of the n
 *   values with replacement; the interval is the 2.5th and 97.5th percentiles
 *   (linear interpolation) of the resampled means (the percentile method).
 *   From n = {@link NORMAL_MIN_N} questions on, the interval is the normal one,
 *   mean ± 1.96 · s / √n, which the bootstrap converges to at that size and
 *   which costs nothing (a 10,000-question run would otherwise spend seconds
 *   per interval).
 * - **Paired bootstrap CI** of the mean difference: the same over the d_i,
 *   resampling questions (so both systems' values of a question move together).
 * - **Sign-flip permutation test** (scores): under "no difference" each d_i is
 *   as likely to be +|d_i| as −|d_i|. The two-sided p-value is the share of
 *   sign assignments whose |Σ d| is at least the observed |Σ d|: exact (all
 *   2^m assignments of the m non-zero differences) when m ≤ {@link EXACT_SIGN_FLIP_MAX},
 *   estimated from {@link PERMUTATION_RESAMPLES} random assignments as
 *   (hits + 1) / (resamples + 1) up to m = {@link NORMAL_MIN_N}, and from
 *   there on taken from the normal approximation of the permutation
 *   distribution (mean 0, variance Σ d_i²): p = 2 · (1 − Φ(|Σ d| / √Σ d_i²)).
 * - **Exact McNemar test** (accuracy): with b questions correct only for A and
 *   c correct only for B, p = min(1, 2 · P(X ≤ min(b, c))) for X ~ Binomial(b + c, ½).
 * - **Minimum detectable difference** at α = 0.05 (two-sided) and 80 % power:
 *   (z₀.₉₇₅ + z₀.₈) · s_d / √n = 2.8016 · s_d / √n, with s_d the sample
 *   standard deviation of the d_i (n − 1 in the denominator). A smaller true
 *   difference would usually not be told from noise at this sample size.
 *
 * @module
 */

import { createRng } from "../util/prng.ts";

/** Seed of every random draw in the statistics (fixed, so reports are reproducible). */
export const STATS_SEED = 20_260_101;
/** Resamples of every bootstrap interval. */
export const BOOTSTRAP_RESAMPLES = 2000;
/** Random sign assignments when the exact sign-flip test would be too large. */
export const PERMUTATION_RESAMPLES = 10_000;
/** From this many values on, intervals and the sign-flip p-value use the normal approximation. */
export const NORMAL_MIN_N = 200;
/** Most non-zero differences for which the sign-flip test enumerates every assignment. */
export const EXACT_SIGN_FLIP_MAX = 16;
/** z₀.₉₇₅ + z₀.₈: the multiplier of the minimum detectable difference. */
export const MDE_MULTIPLIER = 1.959964 + 0.841621;

/** A mean with its 95 % interval. */
export interface Interval {
  mean: number;
  low: number;
  high: number;
}

/** A paired comparison of two systems on the questions both ran. */
export interface PairedComparison {
  /** Questions both systems ran. */
  n: number;
  /** Mean of a − b, with its paired-bootstrap 95 % interval. */
  diff: Interval;
  /** Two-sided p-value of the sign-flip permutation test. */
  p_value: number;
  /** Minimum detectable difference at this n (see the module documentation); null for n < 2. */
  mde: number | null;
}

/** The seeded PRNG the resampling draws from (re-exported for tests). */
export { createRng };

/** Mean and percentile-bootstrap 95 % interval of `values`; null when empty. */
export function bootstrapMean(
  values: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): Interval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = sum(values) / n;
  if (n >= NORMAL_MIN_N) {
    let squares = 0;
    for (const v of values) squares += (v - mean) ** 2;
    const half = 1.959964 * Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
    return { mean, low: mean - half, high: mean + half };
  }
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  if (values.every((v) => v === values[0])) {
    // Every resample draws n copies of the one value, so each resample's mean is this one (summed
    // in the same order): the interval without the draws. Two identical systems differ by zeros
    // on every question, and a run of many systems compares every pair.
    let total = 0;
    for (let i = 0; i < n; i++) total += values[0];
    return { mean, low: total / n, high: total / n };
  }
  const rng = createRng(options.seed ?? STATS_SEED);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += values[Math.floor(rng() * n)];
    means[r] = total / n;
  }
  means.sort();
  return { mean, low: quantile(means, 0.025), high: quantile(means, 0.975) };
}

/**
 * Compares paired values (`a[i]` and `b[i]` are one question's values).
 *
 * @throws {RangeError} when the lists differ in length or are empty.
 */
export function pairedComparison(
  a: readonly number[],
  b: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): PairedComparison {
  if (a.length !== b.length) {
    throw new RangeError(`paired lists differ in length (${a.length} and ${b.length})`);
  }
  if (a.length === 0) throw new RangeError("a paired comparison needs at least one question");
  const diffs = a.map((value, i) => value - b[i]);
  return {
    n: diffs.length,
    diff: bootstrapMean(diffs, options)!,
    p_value: signFlipPValue(diffs, options),
    mde: minimumDetectableDifference(diffs),
  };
}

/** Two-sided p-value of the sign-flip permutation test on paired differences. */
export function signFlipPValue(
  diffs: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): number {
  // Rounding keeps 0.1 + 0.2 and 0.3 from counting as different sums.
  const nonZero = diffs.filter((d) => Math.abs(d) > 1e-12).map((d) => Math.abs(d));
  const m = nonZero.length;
  if (m === 0) return 1;
  const observed = Math.abs(sum(diffs)) - 1e-9;
  if (m <= EXACT_SIGN_FLIP_MAX) {
    let hits = 0;
    const total = 2 ** m;
    for (let mask = 0; mask < total; mask++) {
      let s = 0;
      for (let i = 0; i < m; i++) s += (mask >>> i) & 1 ? nonZero[i] : -nonZero[i];
      if (Math.abs(s) >= observed) hits++;
    }
    return hits / total;
  }
  if (m >= NORMAL_MIN_N) {
    let squares = 0;
    for (const d of nonZero) squares += d * d;
    return Math.min(1, 2 * (1 - normalCdf(Math.abs(sum(diffs)) / Math.sqrt(squares))));
  }
  const resamples = options.resamples ?? PERMUTATION_RESAMPLES;
  const rng = createRng((options.seed ?? STATS_SEED) ^ 0x5bd1e995);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += rng() < 0.5 ? nonZero[i] : -nonZero[i];
    if (Math.abs(s) >= observed) hits++;
  }
  return (hits + 1) / (resamples + 1);
}

/**
 * Exact two-sided McNemar p-value from the discordant counts: `onlyA`
 * questions correct for A alone, `onlyB` for B alone.
 *
 * @throws {RangeError} for negative or non-integer counts.
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  for (const count of [onlyA, onlyB]) {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`McNemar counts must be non-negative integers, got ${count}`);
    }
  }
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const k = Math.min(onlyA, onlyB);
  // P(X <= k) for X ~ Binomial(n, 1/2), summed in log space so large n does not overflow.
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let cdf = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log(n - i + 1) - Math.log(i);
    cdf += Math.exp(logTerm);
  }
  return Math.min(1, 2 * cdf);
}

/** 2.8016 · s_d / √n (see the module documentation); null for fewer than two values. */
export function minimumDetectableDifference(diffs: readonly number[]): number | null {
  const n = diffs.length;
  if (n < 2) return null;
  const mean = sum(diffs) / n;
  let squares = 0;
  for (const d of diffs) squares += (d - mean) ** 2;
  return MDE_MULTIPLIER * Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
}

/**
 * How often a question's verdict changed between consecutive repeats:
 * changes / (repeats − 1), in repeat order; null for a single repeat.
 */
export function flipRate(verdicts: readonly boolean[]): number | null {
  if (verdicts.length < 2) return null;
  let changes = 0;
  for (let i = 1; i < verdicts.length; i++) if (verdicts[i] !== verdicts[i - 1]) changes++;
  return changes / (verdicts.length - 1);
}

/**
 * The standard normal CDF Φ(x), from the complementary error function
 * (Numerical Recipes' erfc approximation, relative error below 1.2e-7).
 */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc = t * Math.exp(
    -z * z - 1.26551223 +
      t * (1.00002368 +
          t * (0.37409196 +
              t * (0.09678418 +
                  t * (-0.18628806 +
                      t * (0.27886807 +
                          t *
                            (-1.13520398 +
                              t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
  );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

function sum(values: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

/** Linear-interpolation quantile of sorted values, q in 0..1. */
function quantile(sorted: Float64Array, q: number): number {
  const position = q * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}
