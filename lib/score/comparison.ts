/**
 * Per-system uncertainty and pairwise comparisons from result lines.
 *
 * Unit of analysis: the question. The statistics are of one metric: the
 * answer score (the default), or a retrieval metric such as `ndcg@10` for
 * runs whose systems give no answer (retrieval-only data sets). A question's
 * value for a system is the mean over its repeats of that metric, its share
 * of passing repeats (accuracy, answer score only), and, for McNemar, its
 * majority verdict (passed in more than half of its repeats). Lines without
 * a value of the metric (no answer checks; no evidence) are left out. Two
 * systems are compared on the questions both ran. The tests and intervals
 * are in `significance.ts`.
 *
 * @module
 */

import { type FoldedSystem, foldRepeats } from "./fold_repeats.ts";
import {
  bootstrapMean,
  type Interval,
  mcnemarExact,
  type PairedComparison,
  pairedDifferences,
} from "./significance.ts";
import type { SignFlipMemo } from "./sign_flip.ts";

/** The fields of a result line the statistics read. */
export interface ScoredLine {
  system: string;
  question_id: string;
  repeat: number;
  answer_score: number | null;
  passed: boolean | null;
  /** Read only for a retrieval metric: `metrics[name]`. */
  retrieval?: { metrics: Record<string, number> | null };
}

/** The metric of answer statistics. */
export const ANSWER_SCORE = "answer_score";

/**
 * A line's value of `metric`: its answer score, or the retrieval metric of
 * that name (`ndcg@10`, `map`, ...); null when the line has none.
 */
export function metricValue(
  line: Pick<ScoredLine, "answer_score" | "retrieval">,
  metric: string,
): number | null {
  if (metric === ANSWER_SCORE) return line.answer_score;
  const metrics = line.retrieval?.metrics;
  if (!metrics || !Object.hasOwn(metrics, metric)) return null;
  const value = metrics[metric];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** Uncertainty of one system's means. */
export interface SystemStats {
  system: string;
  /** Distinct questions with a value of the metric. */
  questions: number;
  /** Mean of the metric (the answer score, or the retrieval metric) and its 95 % interval. */
  score: Interval | null;
  /** Null for a retrieval metric. */
  accuracy: Interval | null;
  /** Mean over questions of `flipRate` (`significance.ts`); null with a single repeat. */
  flip_rate: number | null;
}

/** Two systems on the questions both ran (a − b). */
export interface PairStats {
  a: string;
  b: string;
  /** The comparison on the metric (answer score, or the retrieval metric). */
  score: PairedComparison;
  /** Null for a retrieval metric (no verdicts). */
  accuracy: {
    /** Questions whose majority verdict is correct for a only / b only. */
    only_a: number;
    only_b: number;
    /** Exact McNemar p-value. */
    p_value: number;
  } | null;
}

/** The statistics of a run. */
export interface RunStats {
  /** What `score` is: {@link ANSWER_SCORE} or a retrieval metric's name. */
  metric: string;
  systems: SystemStats[];
  /** Every pair of systems (in system order, a before b) sharing at least one question. */
  pairs: PairStats[];
}

/**
 * Computes the statistics of `lines` for `systems` (in the given order), on
 * `metric` (default {@link ANSWER_SCORE}).
 */
export function runStats(
  systems: readonly string[],
  lines: readonly ScoredLine[],
  options: { metric?: string } = {},
): RunStats {
  const metric = options.metric ?? ANSWER_SCORE;
  const answers = metric === ANSWER_SCORE;
  const values = foldRepeats(systems, lines, (line) => metricValue(line, metric));
  const perSystem = systems.map((system): SystemStats => {
    const folded = values.get(system);
    if (folded === undefined) {
      return { system, questions: 0, score: null, accuracy: null, flip_rate: null };
    }
    let flips = 0;
    let flipSum = 0;
    for (const f of folded.flip) {
      if (Number.isNaN(f)) continue;
      flipSum += f;
      flips++;
    }
    return {
      system,
      questions: folded.score.length,
      score: bootstrapMean(folded.score),
      accuracy: answers ? bootstrapMean(folded.passShare) : null,
      flip_rate: answers && flips ? flipSum / flips : null,
    };
  });
  const pairs: PairStats[] = [];
  // Pairs with the same differences get the same test: computed once (`signFlipTest`'s memo).
  const memo: RunMemo = { signFlip: new Map(), mcnemar: new Map() };
  let scratch = new Float64Array(0);
  for (let i = 0; i < systems.length; i++) {
    const va = values.get(systems[i]);
    if (va === undefined) continue;
    for (let j = i + 1; j < systems.length; j++) {
      const vb = values.get(systems[j]);
      if (vb === undefined) continue;
      const size = Math.min(va.ranks.length, vb.ranks.length);
      if (scratch.length < size) scratch = new Float64Array(size);
      const pair = comparePair(systems[i], systems[j], { va, vb, answers, scratch, memo });
      if (pair) pairs.push(pair);
    }
  }
  return { metric, systems: perSystem, pairs };
}

/** The pairs of each `RunStats` by their systems, made at its first {@link pairOf}. */
const pairIndexes = new WeakMap<RunStats, Map<string, PairStats>>();

function pairKey(a: string, b: string): string {
  return JSON.stringify([a, b]);
}

/**
 * The comparison of `a` with `b` in `stats`, oriented a − b; undefined when
 * they share no question. Looked up in an index of the pairs: the report
 * asks for every pair, and 200 systems have 19,900.
 */
export function pairOf(stats: RunStats, a: string, b: string): PairStats | undefined {
  let index = pairIndexes.get(stats);
  if (index === undefined) {
    index = new Map();
    // The first of two entries for one pair wins, as a search from the start would find it.
    for (const pair of stats.pairs) {
      const key = pairKey(pair.a, pair.b);
      if (!index.has(key)) index.set(key, pair);
    }
    pairIndexes.set(stats, index);
  }
  const direct = index.get(pairKey(a, b));
  if (direct) return direct;
  const reverse = index.get(pairKey(b, a));
  if (!reverse) return undefined;
  const { diff } = reverse.score;
  return {
    a,
    b,
    score: { ...reverse.score, diff: { mean: -diff.mean, low: -diff.high, high: -diff.low } },
    accuracy: reverse.accuracy && {
      only_a: reverse.accuracy.only_b,
      only_b: reverse.accuracy.only_a,
      p_value: reverse.accuracy.p_value,
    },
  };
}

/** Two folded systems on the questions both ran (a merge of their ranks), a − b. */
function comparePair(
  a: string,
  b: string,
  work: {
    va: FoldedSystem;
    vb: FoldedSystem;
    answers: boolean;
    scratch: Float64Array;
    memo: RunMemo;
  },
): PairStats | undefined {
  const { va, vb, scratch } = work;
  let onlyA = 0;
  let onlyB = 0;
  let n = 0;
  const na = va.ranks.length;
  const nb = vb.ranks.length;
  const prefixes = va.ranks[na - 1] === na - 1 && vb.ranks[nb - 1] === nb - 1;
  if (prefixes) {
    // Both ran every question up to their last (ranks 0..n − 1, the usual run): no merge.
    n = Math.min(na, nb);
    const sa = va.byRankScore;
    const sb = vb.byRankScore;
    const ma = va.byRankMajority;
    const mb = vb.byRankMajority;
    for (let q = 0; q < n; q++) {
      scratch[q] = sa[q] - sb[q];
      if (ma[q] !== mb[q]) {
        if (ma[q]) onlyA++;
        else onlyB++;
      }
    }
  }
  let i = 0;
  let j = 0;
  while (!prefixes && i < na && j < nb) {
    const ra = va.ranks[i];
    const rb = vb.ranks[j];
    if (ra < rb) i++;
    else if (rb < ra) j++;
    else {
      scratch[n++] = va.byRankScore[i] - vb.byRankScore[j];
      const x = va.byRankMajority[i];
      const y = vb.byRankMajority[j];
      if (x && !y) onlyA++;
      if (y && !x) onlyB++;
      i++;
      j++;
    }
  }
  if (n === 0) return undefined;
  return {
    a,
    b,
    score: pairedDifferences(scratch.subarray(0, n), { memo: work.memo.signFlip }),
    accuracy: work.answers
      ? { only_a: onlyA, only_b: onlyB, p_value: mcnemarOf(onlyA, onlyB, work.memo) }
      : null,
  };
}

/** Tests already computed in one {@link runStats}, by what they depend on. */
interface RunMemo {
  signFlip: SignFlipMemo;
  /** McNemar p-values by `${onlyA} ${onlyB}`. */
  mcnemar: Map<string, number>;
}

function mcnemarOf(onlyA: number, onlyB: number, memo: RunMemo): number {
  const key = `${onlyA} ${onlyB}`;
  let p = memo.mcnemar.get(key);
  if (p === undefined) memo.mcnemar.set(key, p = mcnemarExact(onlyA, onlyB));
  return p;
}
