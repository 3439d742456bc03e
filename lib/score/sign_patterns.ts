/**
 * The sign assignments of the paired test (`sign_flip.ts`), per group of
 * equal differences: every combination of the groups' flip counts with its
 * binomial weight (exact), or drawn ones (Monte Carlo), each turned into the
 * interval of mean differences it counts against.
 *
 * @module
 */

/** A binomial term smaller than this is left out of an exact enumeration. */
export const BINOMIAL_TAIL = 1e-18;

/** Equal differences with their counts. */
export interface Group {
  value: number;
  count: number;
  /** The flip counts k enumerated or drawn: kFrom..kTo. */
  kFrom: number;
  kTo: number;
  /** log P(k) for k = kFrom..kTo (Binomial(count, ½)). */
  logP: Float64Array;
}

/** The groups of equal values of `d`, smallest first, with each one's binomial weights. */
export function groupValues(d: readonly number[]): Group[] {
  const counts = new Map<number, number>();
  for (const x of d) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].sort((x, y) => x[0] - y[0]).map(([value, count]) => {
    // log C(count, k) − count·ln 2, built up k by k; kept only where it matters.
    const all = new Float64Array(count + 1);
    let log = -count * Math.LN2;
    all[0] = log;
    for (let k = 1; k <= count; k++) {
      log += Math.log(count - k + 1) - Math.log(k);
      all[k] = log;
    }
    const floor = Math.log(BINOMIAL_TAIL);
    let kFrom = 0;
    while (kFrom < count && all[kFrom] < floor) kFrom++;
    const kTo = count - kFrom;
    return { value, count, kFrom, kTo, logP: all.slice(kFrom, kTo + 1) };
  });
}

/** How many combinations of flip counts an exact enumeration of `groups` makes. */
export function patternCount(groups: readonly Group[]): number {
  let size = 1;
  for (const g of groups) size *= g.kTo - g.kFrom + 1;
  return size;
}

/** Each assignment's accepted-against interval [lower, upper] and its weight. */
export interface Patterns {
  lower: Float64Array;
  upper: Float64Array;
  /** null: every assignment weighs 1 (drawn ones). */
  weight: Float64Array | null;
}

/** What every assignment's interval is computed against. */
export interface Observed {
  n: number;
  /** D = Σ d_i. */
  total: number;
  mean: number;
  /**
   * How far each interval is widened: a tie (|A| = |D|) counts against δ, as
   * ≥ does, but the sums behind A and D are added in different orders, so a
   * tie can be off by rounding. {@link invert} takes it off the ends it reports.
   */
  slack: number;
}

/** Where assignment (A, B) counts against δ (see `sign_flip.ts`), widened by the slack. */
function hitInterval(
  a: number,
  b: number,
  o: Observed,
  out: { lower: number; upper: number },
): void {
  if (o.n - b === 0 || o.n + b === 0) {
    out.lower = -Infinity;
    out.upper = Infinity;
    return;
  }
  const r1 = (o.total - a) / (o.n - b);
  const r2 = (o.total + a) / (o.n + b);
  out.lower = Math.min(o.mean, Math.min(r1, r2) - o.slack);
  out.upper = Math.max(o.mean, Math.max(r1, r2) + o.slack);
}

/** Every combination of the groups' flip counts, weighted by its probability under the test. */
export function exactPatterns(groups: readonly Group[], o: Observed): Patterns {
  const size = patternCount(groups);
  const lower = new Float64Array(size);
  const upper = new Float64Array(size);
  const weight = new Float64Array(size);
  const k = groups.map((g) => g.kFrom);
  const at = { lower: 0, upper: 0 };
  for (let p = 0; p < size; p++) {
    let a = 0;
    let b = 0;
    let log = 0;
    for (let j = 0; j < groups.length; j++) {
      const g = groups[j];
      const signed = 2 * k[j] - g.count;
      a += g.value * signed;
      b += signed;
      log += g.logP[k[j] - g.kFrom];
    }
    hitInterval(a, b, o, at);
    lower[p] = at.lower;
    upper[p] = at.upper;
    weight[p] = Math.exp(log);
    // Odometer over the groups' flip counts.
    for (let j = 0; j < groups.length; j++) {
      if (k[j] < groups[j].kTo) {
        k[j]++;
        break;
      }
      k[j] = groups[j].kFrom;
    }
  }
  return { lower, upper, weight };
}

/**
 * `resamples` assignments drawn from `rng`, each of weight 1, after the
 * observed one (every sign +), which counts against every δ.
 */
export function drawnPatterns(
  groups: readonly Group[],
  o: Observed,
  options: { resamples: number; rng: () => number },
): Patterns {
  const size = options.resamples + 1;
  const lower = new Float64Array(size);
  const upper = new Float64Array(size);
  const draw = groups.map((g) => binomialSampler(g, options.rng));
  const at = { lower: 0, upper: 0 };
  // The observed assignment (every sign +) counts for every δ: p = (hits + 1) / (resamples + 1).
  lower[0] = -Infinity;
  upper[0] = Infinity;
  for (let r = 1; r < size; r++) {
    let a = 0;
    let b = 0;
    for (let j = 0; j < groups.length; j++) {
      const signed = 2 * draw[j]() - groups[j].count;
      a += groups[j].value * signed;
      b += signed;
    }
    hitInterval(a, b, o, at);
    lower[r] = at.lower;
    upper[r] = at.upper;
  }
  return { lower, upper, weight: null };
}

/** Draws k ~ Binomial(count, ½): coin by coin for small groups, by the inverse CDF for large. */
function binomialSampler(g: Group, rng: () => number): () => number {
  if (g.count <= 32) {
    // One draw gives 32 fair coins: k is the count of ones among the first `count` bits.
    const mask = g.count === 32 ? 0xffffffff : (1 << g.count) - 1;
    return () => popcount((rng() * 4294967296) & mask);
  }
  const cdf = new Float64Array(g.logP.length);
  let sum = 0;
  for (let i = 0; i < cdf.length; i++) cdf[i] = sum += Math.exp(g.logP[i]);
  return () => {
    const u = rng() * sum;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return g.kFrom + lo;
  };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
