/**
 * The sign assignments of the paired test (`sign_flip.ts`), per group of
 * equal differences: every combination of the groups' flip counts with its
 * binomial weight (exact), or drawn ones (Monte Carlo), each turned into the
 * interval of mean differences it counts against.
 *
 * @module
 */

import { wholeLogs } from "./whole_logs.ts";

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

/**
 * Counts of equal values, added one by one, then their groups. A short typed list is scanned
 * while there are at most 16 distinct values (scores take few; a Map lookup costs more), a Map
 * holds them past that. A group's weights depend only on its count, so they are kept per count (a
 * report tests thousands of pairs with the same few counts): `logP` is shared, never written.
 */
export class ValueCounts {
  #values = new Float64Array(16);
  #counts = new Float64Array(16);
  #distinct = 0;
  #last = -1;
  #index: Map<number, number> | undefined;
  #more: number[] = [];
  #moreCounts: number[] = [];

  /** Counts one more `x`. */
  add(x: number): void {
    const values = this.#values;
    const last = this.#last;
    if (last !== -1 && values[last] === x) {
      this.#counts[last]++;
      return;
    }
    if (this.#index !== undefined) {
      const at = this.#index.get(x);
      if (at !== undefined) this.#moreCounts[at]++;
      else {
        this.#index.set(x, this.#more.length);
        this.#more.push(x);
        this.#moreCounts.push(1);
      }
      return;
    }
    let at = 0;
    while (at < this.#distinct && values[at] !== x) at++;
    if (at === 16) {
      this.#index = new Map();
      for (let j = 0; j < 16; j++) {
        this.#index.set(values[j], j);
        this.#more.push(values[j]);
        this.#moreCounts.push(this.#counts[j]);
      }
      this.#last = -1;
      this.add(x);
      return;
    }
    if (at === this.#distinct) this.#distinct++;
    values[at] = x;
    this.#counts[at]++;
    this.#last = at;
  }

  /** The groups of the values counted, smallest first, with their binomial weights. */
  groups(): Group[] {
    const values = this.#index === undefined
      ? [...this.#values.subarray(0, this.#distinct)]
      : this.#more;
    const counts = this.#index === undefined
      ? [...this.#counts.subarray(0, this.#distinct)]
      : this.#moreCounts;
    const order = values.map((_, j) => j).sort((x, y) => values[x] - values[y]);
    return order.map((j) => {
      const { kFrom, logP } = binomialWeights(counts[j]);
      return { value: values[j], count: counts[j], kFrom, kTo: counts[j] - kFrom, logP };
    });
  }
}

/** {@link binomialWeights} by count, cleared when they hold more than {@link WEIGHTS_KEPT} terms. */
const weightsByCount = new Map<number, { kFrom: number; logP: Float64Array }>();
const WEIGHTS_KEPT = 1 << 22;
let weightsKept = 0;

/**
 * log P(k) for k ~ Binomial(count, ½), from the first k whose term reaches
 * {@link BINOMIAL_TAIL} to its mirror (kFrom..count − kFrom).
 */
function binomialWeights(count: number): { kFrom: number; logP: Float64Array } {
  const known = weightsByCount.get(count);
  if (known !== undefined) return known;
  // log C(count, k) − count·ln 2, built up k by k; kept only where it matters.
  const all = new Float64Array(count + 1);
  const logs = wholeLogs(count);
  let log = -count * Math.LN2;
  all[0] = log;
  for (let k = 1; k <= count; k++) {
    log += logs === undefined
      ? Math.log(count - k + 1) - Math.log(k)
      : logs[count - k + 1] - logs[k];
    all[k] = log;
  }
  const floor = Math.log(BINOMIAL_TAIL);
  let kFrom = 0;
  while (kFrom < count && all[kFrom] < floor) kFrom++;
  const weights = { kFrom, logP: all.slice(kFrom, count - kFrom + 1) };
  if (weightsKept + weights.logP.length > WEIGHTS_KEPT) {
    weightsByCount.clear();
    weightsKept = 0;
  }
  weightsByCount.set(count, weights);
  weightsKept += weights.logP.length;
  return weights;
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
 * observed one (every sign +), which counts against every δ. Each group's
 * flip count takes one draw: coin by coin for groups of up to 32 (one draw
 * gives 32 fair coins: k is the count of ones among the first `count` bits),
 * by the inverse CDF for larger ones. One loop with no call but the draw's: a
 * report draws 10,000 assignments for each of thousands of pairs.
 */
export function drawnPatterns(
  groups: readonly Group[],
  o: Observed,
  options: { resamples: number; rng: () => number },
): Patterns {
  const size = options.resamples + 1;
  const lower = new Float64Array(size);
  const upper = new Float64Array(size);
  const { rng } = options;
  const { n, total, mean, slack } = o;
  const G = groups.length;
  const value = new Float64Array(G);
  const count = new Float64Array(G);
  const kFrom = new Float64Array(G);
  const mask: number[] = [];
  const cdfs: Float64Array[] = [];
  const guides: Int32Array[] = [];
  const sums = new Float64Array(G);
  for (let j = 0; j < G; j++) {
    const g = groups[j];
    value[j] = g.value;
    count[j] = g.count;
    kFrom[j] = g.kFrom;
    // -1: a group drawn by its CDF.
    mask.push(g.count <= 32 ? (g.count === 32 ? 0xffffffff : (1 << g.count) - 1) : -1);
    const cdf = new Float64Array(g.count <= 32 ? 0 : g.logP.length);
    let sum = 0;
    for (let i = 0; i < cdf.length; i++) cdf[i] = sum += Math.exp(g.logP[i]);
    cdfs.push(cdf);
    sums[j] = sum;
    // guide[b]: the first index whose CDF passes b/L of the sum, where a search for u in the
    // b-th L-th of the sum starts (a guide table: a step or two instead of a binary search).
    const guide = new Int32Array(cdf.length);
    for (let b = 0, i = 0; b < guide.length; b++) {
      while (i < cdf.length - 1 && cdf[i] <= (b / guide.length) * sum) i++;
      guide[b] = i;
    }
    guides.push(guide);
  }
  // The observed assignment (every sign +) counts for every δ: p = (hits + 1) / (resamples + 1).
  lower[0] = -Infinity;
  upper[0] = Infinity;
  for (let r = 1; r < size; r++) {
    let a = 0;
    let b = 0;
    for (let j = 0; j < G; j++) {
      let k: number;
      if (mask[j] !== -1) {
        k = popcount((rng() * 4294967296) & mask[j]);
      } else {
        // The first index whose CDF exceeds u (the last when none does).
        const cdf = cdfs[j];
        const guide = guides[j];
        const u = rng() * sums[j];
        let i = guide[Math.min(guide.length - 1, Math.floor((u / sums[j]) * guide.length))];
        while (i > 0 && cdf[i - 1] > u) i--;
        while (i < cdf.length - 1 && cdf[i] <= u) i++;
        k = kFrom[j] + i;
      }
      const signed = 2 * k - count[j];
      a += value[j] * signed;
      b += signed;
    }
    // hitInterval, inline.
    if (n - b === 0 || n + b === 0) {
      lower[r] = -Infinity;
      upper[r] = Infinity;
    } else {
      const r1 = (total - a) / (n - b);
      const r2 = (total + a) / (n + b);
      lower[r] = Math.min(mean, Math.min(r1, r2) - slack);
      upper[r] = Math.max(mean, Math.max(r1, r2) + slack);
    }
  }
  return { lower, upper, weight: null };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
