/**
 * What a difference between two systems proves: bootstrap confidence
 * intervals of one system's mean, the paired test of two systems with its
 * interval and minimum detectable difference, McNemar's test and flip rates.
 * Pure functions over per-question values (repeats already averaged within a
 * question), deterministic: every random draw comes from a PRNG seeded with
 * {@link STATS_SEED}, so a run's report is the same every time.
 *
 * Definitions (n = questions; for paired functions, the questions both
 * systems ran, with d_i = a_i − b_i):
 * - **Bootstrap CI** of one system's mean: {@link BOOTSTRAP_RESAMPLES}
 *   resamples of the n values with replacement; the interval is the 2.5th and
 *   97.5th percentiles (linear interpolation) of the resampled means (the
 *   percentile method). From n = {@link NORMAL_MIN_N} questions on, the
 *   interval is the normal one, mean ± 1.96 · s / √n, which the bootstrap
 *   converges to at that size and which costs nothing.
 * - **Paired comparison**: the sign-flip permutation test and the interval
 *   that inverts it (`sign_flip.ts`): the p-value, the interval and the
 *   verdict are one procedure, so they agree. With fewer than
 *   {@link MIN_DIFFERING} differing questions no result can reach p < 0.05:
 *   the comparison is marked not decidable.
 * - **Minimum detectable difference**: the smallest mean difference the same
 *   test tells from 0 given this spread of per-question differences — the
 *   larger distance from the mean to an end of its interval (the interval
 *   moves with the mean and keeps its shape). An observed difference under it
 *   is not significant; one over it, on its side, is. Null when the
 *   comparison is not decidable.
 * - **Exact McNemar test** (accuracy): with b questions correct only for A and
 *   c correct only for B, p = min(1, 2 · P(X ≤ min(b, c))) for X ~ Binomial(b + c, ½).
 *
 * @module
 */

import { createRng } from "../util/prng.ts";
import { wholeLogs } from "./whole_logs.ts";
import {
  ALPHA,
  MIN_DIFFERING,
  NORMAL_MIN_N,
  PERMUTATION_RESAMPLES,
  type SignFlipMemo,
  signFlipTest,
  type TestMethod,
} from "./sign_flip.ts";

export { ALPHA, MIN_DIFFERING, NORMAL_MIN_N, PERMUTATION_RESAMPLES, type TestMethod };
export { normalCdf } from "./sign_flip.ts";

/** Seed of every random draw in the statistics (fixed, so reports are reproducible). */
export const STATS_SEED = 20_260_101;
/** Resamples of every bootstrap interval. */
export const BOOTSTRAP_RESAMPLES = 2000;

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
  /** Questions whose values differ between the two. */
  differing: number;
  /** Mean of a − b, with the 95 % interval of the test (every difference it does not reject). */
  diff: Interval;
  /** Two-sided p-value of "no difference", from the same test: below 0.05 exactly when 0 is outside `diff`. */
  p_value: number;
  /** How the test was computed (`sign_flip.ts`). */
  method: TestMethod;
  /** At least {@link MIN_DIFFERING} questions differ, so a result could reach p < 0.05. */
  decidable: boolean;
  /** Minimum detectable difference (see the module documentation); null when not decidable. */
  mde: number | null;
}

/**
 * What a comparison says, a − b: `same` (no question differs), `too_few`
 * (fewer than {@link MIN_DIFFERING} differ: no test can decide), `undecided`
 * (p ≥ 0.05, 0 inside the interval), `higher` or `lower` (p < 0.05, the
 * interval wholly above or below 0).
 */
export type Verdict = "same" | "too_few" | "undecided" | "higher" | "lower";

/** The {@link Verdict} of a comparison. */
export function verdictOf(c: PairedComparison): Verdict {
  if (c.differing === 0) return "same";
  if (!c.decidable) return "too_few";
  if (c.p_value >= ALPHA) return "undecided";
  return c.diff.mean > 0 ? "higher" : "lower";
}

/** The seeded PRNG the resampling draws from (re-exported for tests). */
export { createRng };

/** Mean and percentile-bootstrap 95 % interval of `values`; null when empty. */
export function bootstrapMean(
  values: ArrayLike<number>,
  options: { resamples?: number; seed?: number } = {},
): Interval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = sum(values) / n;
  if (n >= NORMAL_MIN_N) {
    let squares = 0;
    for (let i = 0; i < n; i++) squares += (values[i] - mean) ** 2;
    const half = 1.959964 * Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
    return { mean, low: mean - half, high: mean + half };
  }
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  if (allEqual(values)) {
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
 * Compares paired values (`a[i]` and `b[i]` are one question's values, each
 * in `bounds`, default 0..1).
 *
 * @throws {RangeError} when the lists differ in length or are empty.
 */
export function pairedComparison(
  a: readonly number[],
  b: readonly number[],
  options: { resamples?: number; seed?: number; bounds?: readonly [number, number] } = {},
): PairedComparison {
  if (a.length !== b.length) {
    throw new RangeError(`paired lists differ in length (${a.length} and ${b.length})`);
  }
  if (a.length === 0) throw new RangeError("a paired comparison needs at least one question");
  const [min, max] = options.bounds ?? [0, 1];
  return pairedDifferences(a.map((value, i) => value - b[i]), {
    ...options,
    bounds: [min - max, max - min],
  });
}

/**
 * {@link pairedComparison} from the paired differences `diffs` (a − b per
 * question) in `bounds` (the range a difference can take, default −1..1).
 * `memo` (one per report) lets pairs with the same differences share one test.
 *
 * @throws {RangeError} when `diffs` is empty.
 */
export function pairedDifferences(
  diffs: ArrayLike<number>,
  options: {
    resamples?: number;
    seed?: number;
    bounds?: readonly [number, number];
    memo?: SignFlipMemo;
  } = {},
): PairedComparison {
  const test = signFlipTest(diffs, {
    seed: options.seed ?? STATS_SEED,
    bounds: options.bounds ?? [-1, 1],
    ...(options.resamples === undefined ? {} : { resamples: options.resamples }),
    ...(options.memo === undefined ? {} : { memo: options.memo }),
  });
  const decidable = test.differing >= MIN_DIFFERING;
  return {
    n: test.n,
    differing: test.differing,
    diff: { mean: test.mean, low: test.low, high: test.high },
    p_value: test.p_value,
    method: test.method,
    decidable,
    mde: decidable ? Math.max(test.mean - test.low, test.high - test.mean) : null,
  };
}

/** Two-sided p-value of the sign-flip permutation test on paired differences (`sign_flip.ts`). */
export function signFlipPValue(
  diffs: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): number {
  const bound = Math.max(1, ...diffs.map((d) => Math.abs(d)));
  return signFlipTest(diffs, {
    seed: options.seed ?? STATS_SEED,
    bounds: [-bound, bound],
    ...(options.resamples === undefined ? {} : { resamples: options.resamples }),
  }).p_value;
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
  const logs = wholeLogs(n);
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let cdf = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += logs === undefined ? Math.log(n - i + 1) - Math.log(i) : logs[n - i + 1] - logs[i];
    // Below −746 the term is 0 in doubles (exp underflows): adding it changes nothing.
    if (logTerm > -746) cdf += Math.exp(logTerm);
  }
  return Math.min(1, 2 * cdf);
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

function sum(values: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

function allEqual(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] !== values[0]) return false;
  return true;
}

/** Linear-interpolation quantile of sorted values, q in 0..1. */
function quantile(sorted: Float64Array, q: number): number {
  const position = q * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}
