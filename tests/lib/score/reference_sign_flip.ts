/**
 * The paired sign-flip test as it was before the statistics were made fast for big runs
 * (`lib/score/sign_flip.ts` and `sign_patterns.ts` at main e01c490, comments dropped): the
 * straightforward reference the property tests hold the fast path to, value for value. Not used
 * by ragbench.
 *
 * @module
 */

import { createRng } from "../../../lib/util/prng.ts";
const BINOMIAL_TAIL = 1e-18;

interface Group {
  value: number;
  count: number;
  kFrom: number;
  kTo: number;
  logP: Float64Array;
}

function groupValues(d: readonly number[]): Group[] {
  const counts = new Map<number, number>();
  for (const x of d) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].sort((x, y) => x[0] - y[0]).map(([value, count]) => {
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

function patternCount(groups: readonly Group[]): number {
  let size = 1;
  for (const g of groups) size *= g.kTo - g.kFrom + 1;
  return size;
}

interface Patterns {
  lower: Float64Array;
  upper: Float64Array;
  weight: Float64Array | null;
}

interface Observed {
  n: number;
  total: number;
  mean: number;
  slack: number;
}

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

function exactPatterns(groups: readonly Group[], o: Observed): Patterns {
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

function drawnPatterns(
  groups: readonly Group[],
  o: Observed,
  options: { resamples: number; rng: () => number },
): Patterns {
  const size = options.resamples + 1;
  const lower = new Float64Array(size);
  const upper = new Float64Array(size);
  const draw = groups.map((g) => binomialSampler(g, options.rng));
  const at = { lower: 0, upper: 0 };
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

function binomialSampler(g: Group, rng: () => number): () => number {
  if (g.count <= 32) {
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

const ALPHA = 0.05;
const Z_975 = 1.959964;
const DIFF_EPSILON = 1e-9;
const EXACT_PATTERNS_MAX = 1 << 16;
const PERMUTATION_RESAMPLES = 10_000;
const NORMAL_MIN_N = 200;
const MIN_DIFFERING = minDiffering(ALPHA);

type TestMethod = "exact" | "monte_carlo" | "normal";

export interface SignFlipResult {
  n: number;
  differing: number;
  mean: number;
  low: number;
  high: number;
  p_value: number;
  method: TestMethod;
}

interface SignFlipOptions {
  resamples?: number;
  seed?: number;
  bounds?: readonly [number, number];
}

export function signFlipTest(
  diffs: readonly number[],
  options: SignFlipOptions = {},
): SignFlipResult {
  const n = diffs.length;
  if (n === 0) throw new RangeError("a paired comparison needs at least one question");
  const [minBound, maxBound] = options.bounds ?? [-1, 1];
  if (!(minBound <= 0 && maxBound >= 0)) {
    throw new RangeError(`bounds must hold 0, got [${minBound}, ${maxBound}]`);
  }
  const d = diffs.map((x) => {
    if (!Number.isFinite(x)) throw new RangeError(`a paired difference is not finite: ${x}`);
    return Math.abs(x) <= DIFF_EPSILON ? 0 : x;
  });
  let total = 0;
  let differing = 0;
  for (const x of d) {
    total += x;
    if (x !== 0) differing++;
  }
  const mean = total / n;
  if (differing === 0) {
    return { n, differing, mean: 0, low: 0, high: 0, p_value: 1, method: "exact" };
  }
  const groups = groupValues(d);
  const exactSize = patternCount(groups);
  let method: TestMethod;
  let found: { low: number; high: number; p: number };
  let largest = 0;
  for (const x of d) largest = Math.max(largest, Math.abs(x));
  const observed: Observed = { n, total, mean, slack: DIFF_EPSILON * Math.max(1, largest) };
  if (exactSize <= EXACT_PATTERNS_MAX || differing < MIN_DIFFERING) {
    method = "exact";
    found = invert(exactPatterns(groups, observed), observed);
  } else if (differing < NORMAL_MIN_N) {
    method = "monte_carlo";
    const rng = createRng((options.seed ?? 0) ^ 0x5bd1e995);
    const patterns = drawnPatterns(groups, observed, {
      resamples: options.resamples ?? PERMUTATION_RESAMPLES,
      rng,
    });
    found = invert(patterns, observed);
  } else {
    method = "normal";
    found = normalInterval(d, mean);
  }
  return {
    n,
    differing,
    mean,
    low: Math.max(minBound, found.low),
    high: Math.min(maxBound, found.high),
    p_value: Math.min(1, found.p),
    method,
  };
}

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
  let lowEnd = quantile(lower, weight, total, 1);
  let highEnd = quantile(upper, weight, total, -1);
  if (mean > 0) lowEnd = onZerosSide(lowEnd, lower, p, 1);
  else if (mean < 0) highEnd = onZerosSide(highEnd, upper, p, -1);
  let low = Math.min(mean, clean(lowEnd + o.slack));
  let high = Math.max(mean, clean(highEnd - o.slack));
  if (p >= ALPHA) {
    low = Math.min(low, 0);
    high = Math.max(high, 0);
  }
  return { low, high, p };
}

function clean(x: number): number {
  return Number.isFinite(x) ? Number(x.toPrecision(12)) : x;
}

function weightBeyond(ends: Float64Array, weight: Float64Array | null, sign: 1 | -1): number {
  let sum = 0;
  for (let i = 0; i < ends.length; i++) {
    if (sign * ends[i] <= 0) sum += weight === null ? 1 : weight[i];
  }
  return sum;
}

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
  return sign * last;
}

function normalInterval(
  d: readonly number[],
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
    if (mean > 0) low = Number.MIN_VALUE;
    else high = -Number.MIN_VALUE;
  }
  return { low, high, p };
}

function normalCdf(x: number): number {
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
