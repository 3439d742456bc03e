/**
 * The paired test behind every comparison ragbench prints, and its interval:
 * one procedure, so a verdict, its 95 % interval and its p-value cannot
 * disagree.
 *
 * The test is the sign-flip (Fisher) permutation test of "the mean
 * difference is δ": if it is, each centred difference d_i − δ is as likely
 * to be positive as negative, and the p-value is the share of sign
 * assignments s whose |Σ s_i (d_i − δ)| is at least the observed
 * |Σ (d_i − δ)|. The reported p-value is this at δ = 0; the interval is every
 * δ the test does not reject at {@link ALPHA} (the test inverted). Because
 * the interval is made of the test's own answers, "0 is outside the interval"
 * and "p < 0.05" are the same statement.
 *
 * How it is computed. For one assignment s, write A = Σ s_i d_i, B = Σ s_i
 * and D = Σ d_i. It counts against δ when |A − Bδ| ≥ |D − nδ|; squaring, that
 * is ((D − A) − (n − B)δ)((D + A) − (n + B)δ) ≤ 0, which holds on the closed
 * interval between (D − A)/(n − B) and (D + A)/(n + B) (every δ when B = ±n).
 * Every such interval holds the observed mean D/n, so p(δ) falls as δ moves
 * away from the mean on either side, the accepted δ form one interval, and its
 * ends are weighted quantiles of the assignments' interval ends. Assignments
 * are enumerated, or drawn, per group of equal differences (k of a group's c
 * questions flipped positive has weight C(c, k) / 2^c), so binary scores with
 * thousands of tied questions stay exact:
 * - **exact** when the groups' combinations number at most
 *   {@link EXACT_PATTERNS_MAX}, or whenever fewer than {@link MIN_DIFFERING}
 *   questions differ (a group's binomial tail below {@link BINOMIAL_TAIL} is
 *   left out; it cannot move a p-value at the printed precision);
 * - **Monte Carlo** otherwise while fewer than {@link NORMAL_MIN_N} questions
 *   differ: {@link PERMUTATION_RESAMPLES} assignments drawn from a PRNG seeded
 *   with the caller's seed, plus the observed one, so p = (hits + 1) /
 *   (resamples + 1); the same draws serve every δ;
 * - **normal** from {@link NORMAL_MIN_N} differing questions on: the
 *   permutation distribution of Σ s_i (d_i − δ) has mean 0 and variance
 *   Σ (d_i − δ)², so t(δ) = n·|m − δ| / √(S + n(m − δ)²) with m the mean and
 *   S = Σ (d_i − m)², p(δ) = 2(1 − Φ(t(δ))), and the accepted δ are
 *   m ± z·√(S / (n(n − z²))), z = {@link Z_975}; 0 is placed inside or outside
 *   that interval by its own p-value, so rounding in Φ cannot split them.
 *
 * Differences within {@link DIFF_EPSILON} of 0 count as 0 (floating-point
 * noise between two equal scores is not a difference). The interval is cut
 * to the range the mean difference can take (−1..1 for scores in 0..1): with
 * five questions or fewer no δ at all is rejected.
 *
 * @module
 */

import { createRng } from "../util/prng.ts";
import { select } from "./select.ts";
import {
  BINOMIAL_TAIL,
  drawnPatterns,
  exactPatterns,
  type Observed,
  patternCount,
  type Patterns,
  ValueCounts,
} from "./sign_patterns.ts";

export { BINOMIAL_TAIL };

/** Significance level of every verdict; the interval is at 1 − ALPHA. */
export const ALPHA = 0.05;
/** z₀.₉₇₅, the normal quantile of a two-sided 95 % interval. */
export const Z_975 = 1.959964;
/** A per-question difference closer to 0 than this is 0. */
export const DIFF_EPSILON = 1e-9;
/** Most combinations of group counts that are enumerated rather than drawn. */
export const EXACT_PATTERNS_MAX = 1 << 16;
/** Random sign assignments of the Monte Carlo test. */
export const PERMUTATION_RESAMPLES = 10_000;
/** From this many differing questions on, the normal approximation is used. */
export const NORMAL_MIN_N = 200;
/**
 * Fewest differing questions for which this test can reach p < {@link ALPHA}:
 * with m of them, the smallest p-value any data can give is 2 / 2^m
 * (all differences one way), so m = 5 gives 0.0625 at best. Below it no
 * test of the sign of the difference can decide.
 */
export const MIN_DIFFERING = minDiffering(ALPHA);

/** How the test was computed. */
export type TestMethod = "exact" | "monte_carlo" | "normal";

/** The test's answer on one list of paired differences. */
export interface SignFlipResult {
  /** Differences (questions). */
  n: number;
  /** Differences that are not 0 (beyond {@link DIFF_EPSILON}). */
  differing: number;
  mean: number;
  /** Ends of the 95 % interval: every mean difference the test does not reject. */
  low: number;
  high: number;
  /** Two-sided p-value of "the mean difference is 0". */
  p_value: number;
  method: TestMethod;
}

/**
 * Results of {@link signFlipTest} by what they depend on (the groups of equal differences, their
 * sum, the options), for the exact and Monte Carlo methods: one per report, so pairs of systems
 * with the same differences are tested once.
 */
export type SignFlipMemo = Map<string, SignFlipResult>;

/** Options of {@link signFlipTest}. */
export interface SignFlipOptions {
  /** Monte Carlo assignments (default {@link PERMUTATION_RESAMPLES}). */
  resamples?: number;
  /** PRNG seed of the Monte Carlo draws. */
  seed?: number;
  /** The range the mean difference can take; must hold 0 (default −1..1). */
  bounds?: readonly [number, number];
  /** Where results are kept and looked up (see {@link SignFlipMemo}). */
  memo?: SignFlipMemo;
}

/**
 * Runs the test on `diffs` (see the module documentation).
 *
 * @throws {RangeError} for an empty list, a non-finite difference or bounds without 0.
 */
export function signFlipTest(
  diffs: ArrayLike<number>,
  options: SignFlipOptions = {},
): SignFlipResult {
  const n = diffs.length;
  if (n === 0) throw new RangeError("a paired comparison needs at least one question");
  const [minBound, maxBound] = options.bounds ?? [-1, 1];
  if (!(minBound <= 0 && maxBound >= 0)) {
    throw new RangeError(`bounds must hold 0, got [${minBound}, ${maxBound}]`);
  }
  const d = new Float64Array(n);
  let total = 0;
  let differing = 0;
  let largest = 0;
  // The groups of equal differences are counted in the same pass.
  const counts = new ValueCounts();
  for (let i = 0; i < n; i++) {
    const x = diffs[i];
    if (!Number.isFinite(x)) throw new RangeError(`a paired difference is not finite: ${x}`);
    const v = Math.abs(x) <= DIFF_EPSILON ? 0 : x;
    d[i] = v;
    total += v;
    if (v !== 0) differing++;
    largest = Math.max(largest, Math.abs(v));
    counts.add(v);
  }
  const mean = total / n;
  if (differing === 0) {
    return { n, differing, mean: 0, low: 0, high: 0, p_value: 1, method: "exact" };
  }
  const groups = counts.groups();
  const exactSize = patternCount(groups);
  const method: TestMethod = exactSize <= EXACT_PATTERNS_MAX || differing < MIN_DIFFERING
    ? "exact"
    : differing < NORMAL_MIN_N
    ? "monte_carlo"
    : "normal";
  const resamples = options.resamples ?? PERMUTATION_RESAMPLES;
  const seed = options.seed ?? 0;
  // The normal method reads the differences in order (a sum of squares): not kept.
  let key: string | undefined;
  if (options.memo !== undefined && method !== "normal") {
    key = `${method} ${seed} ${resamples} ${minBound} ${maxBound} ${n} ${total}`;
    for (const g of groups) key += ` ${g.value}:${g.count}`;
    const known = options.memo.get(key);
    if (known !== undefined) return { ...known };
  }
  const observed: Observed = { n, total, mean, slack: DIFF_EPSILON * Math.max(1, largest) };
  let found: { low: number; high: number; p: number };
  if (method === "exact") {
    found = invert(exactPatterns(groups, observed), observed);
  } else if (method === "monte_carlo") {
    const rng = createRng(seed ^ 0x5bd1e995);
    found = invert(drawnPatterns(groups, observed, { resamples, rng }), observed);
  } else {
    found = normalInterval(d, mean);
  }
  const result: SignFlipResult = {
    n,
    differing,
    mean,
    low: Math.max(minBound, found.low),
    high: Math.min(maxBound, found.high),
    p_value: Math.min(1, found.p),
    method,
  };
  if (key !== undefined) options.memo!.set(key, { ...result });
  return result;
}

/**
 * The accepted interval and p(0) from the assignments. An end is where the
 * weight of the ends beyond it reaches ALPHA of the total (a weighted
 * selection, no full sort); p(0) is the weight of the assignments that count
 * against 0. The two sum in different orders, so where p(0) lies within
 * rounding of ALPHA they could split: 0's side of the interval is then set
 * by p(0), so 0 lies inside exactly when p(0) ≥ ALPHA.
 */
function invert(patterns: Patterns, o: Observed): { low: number; high: number; p: number } {
  const { lower, upper, weight } = patterns;
  const { mean } = o;
  let total = lower.length;
  if (weight !== null) {
    total = 0;
    for (let i = 0; i < weight.length; i++) total += weight[i];
  }
  let p = 1;
  if (mean > 0) p = weightBeyond(lower, weight, 1) / total;
  else if (mean < 0) p = weightBeyond(upper, weight, -1) / total;
  let lowEnd: number;
  let highEnd: number;
  if (weight === null) {
    // Drawn assignments weigh 1 each: the ends are order statistics, selected in place (the
    // arrays are not read in order again).
    let k = Math.max(1, Math.ceil(ALPHA * total));
    while (k > 1 && (k - 1) / total >= ALPHA) k--;
    while (k < total && k / total < ALPHA) k++;
    lowEnd = select(lower, k - 1);
    highEnd = select(upper, total - k);
  } else {
    lowEnd = quantile(lower, weight, total, 1);
    highEnd = quantile(upper, weight, total, -1);
  }
  if (mean > 0) lowEnd = onZerosSide(lowEnd, lower, p, 1);
  else if (mean < 0) highEnd = onZerosSide(highEnd, upper, p, -1);
  // The ends without the slack (to 12 digits: 0.5, not 0.49999999999999994) ...
  let low = Math.min(mean, clean(lowEnd + o.slack));
  let high = Math.max(mean, clean(highEnd - o.slack));
  // ... and 0 inside when its p-value says so. Taking the slack off moves an end by at most the
  // slack: an end that reached past 0 may now stop short of it by that much, never the reverse
  // (an end beyond 0 lay beyond it by more than the slack).
  if (p >= ALPHA) {
    low = Math.min(low, 0);
    high = Math.max(high, 0);
  }
  return { low, high, p };
}

/** `x` to 12 significant digits (infinities as they are). */
function clean(x: number): number {
  return Number.isFinite(x) ? Number(x.toPrecision(12)) : x;
}

/** The weight of the ends at or beyond 0 (sign 1: lower ends ≤ 0; -1: upper ends ≥ 0). */
function weightBeyond(ends: Float64Array, weight: Float64Array | null, sign: 1 | -1): number {
  let sum = 0;
  for (let i = 0; i < ends.length; i++) {
    if (sign * ends[i] <= 0) sum += weight === null ? 1 : weight[i];
  }
  return sum;
}

/**
 * The end on 0's side as p(0) has it: at or past 0 when p(0) ≥ ALPHA, else
 * short of it (the nearest end past 0, when the selection's rounding put it
 * at or beyond 0).
 */
function onZerosSide(end: number, ends: Float64Array, p: number, sign: 1 | -1): number {
  if (p >= ALPHA) return sign * Math.min(sign * end, 0);
  if (sign * end > 0) return end;
  let nearest = Infinity;
  for (let i = 0; i < ends.length; i++) {
    const v = sign * ends[i];
    if (v > 0 && v < nearest) nearest = v;
  }
  return sign * nearest;
}

/**
 * The end of one side: with sign 1 the smallest v whose lower ends at or
 * under it weigh ALPHA of `total`; with sign -1 the largest v whose upper ends
 * at or over it do. A weighted quickselect (three-way partitions around a
 * pivot drawn from a fixed generator, so the result is the same every time):
 * linear on average where a sort of the ends cost most of the test.
 */
function quantile(
  ends: Float64Array,
  weight: Float64Array | null,
  total: number,
  sign: 1 | -1,
): number {
  const index = new Uint32Array(ends.length);
  for (let i = 0; i < index.length; i++) index[i] = i;
  let lo = 0;
  let hi = index.length;
  // Weight of the ends known to lie before every remaining candidate.
  let before = 0;
  let state = 0x2545f491;
  let last = -Infinity;
  while (hi > lo) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const pivot = sign * ends[index[lo + (state % (hi - lo))]];
    let lt = lo;
    let i = lo;
    let gt = hi;
    let less = 0;
    let equal = 0;
    while (i < gt) {
      const k = index[i];
      const v = sign * ends[k];
      if (v < pivot) {
        less += weight === null ? 1 : weight[k];
        index[i++] = index[lt];
        index[lt++] = k;
      } else if (v > pivot) {
        index[i] = index[--gt];
        index[gt] = k;
      } else {
        equal += weight === null ? 1 : weight[k];
        i++;
      }
    }
    if ((before + less) / total >= ALPHA) {
      hi = lt;
    } else if ((before + less + equal) / total >= ALPHA) {
      return sign * pivot;
    } else {
      before += less + equal;
      last = Math.max(last, pivot);
      lo = gt;
    }
  }
  // Rounding left the sum just short of ALPHA: every end counts, up to the last.
  return sign * last;
}

function normalInterval(
  d: Float64Array,
  mean: number,
): { low: number; high: number; p: number } {
  const n = d.length;
  let s = 0;
  for (const x of d) s += (x - mean) ** 2;
  const t0 = n * Math.abs(mean) / Math.sqrt(s + n * mean * mean);
  const p = Math.min(1, 2 * (1 - normalCdf(t0)));
  const half = Z_975 * Math.sqrt(s / (n * (n - Z_975 * Z_975)));
  let low = mean - half;
  let high = mean + half;
  if (p >= ALPHA) {
    low = Math.min(low, 0);
    high = Math.max(high, 0);
  } else if (low <= 0 && high >= 0) {
    // Only rounding in Φ can put 0 inside while its p-value rejects it: 0's p-value decides.
    if (mean > 0) low = Number.MIN_VALUE;
    else high = -Number.MIN_VALUE;
  }
  return { low, high, p };
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

function minDiffering(alpha: number): number {
  let m = 1;
  while (2 / 2 ** m >= alpha) m++;
  return m;
}
