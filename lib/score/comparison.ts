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

import {
  bootstrapMean,
  flipRate,
  type Interval,
  mcnemarExact,
  type PairedComparison,
  pairedComparison,
} from "./significance.ts";

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

/** One system's values on one question, repeats folded. */
interface QuestionValue {
  score: number;
  passShare: number;
  majority: boolean;
  verdicts: boolean[];
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
  /** Mean over questions of {@link flipRate}; null with a single repeat. */
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
  const values = foldRepeats(lines, metric);
  const perSystem = systems.map((system) => {
    const byQuestion = values.get(system) ?? new Map<string, QuestionValue>();
    const folded = [...byQuestion.values()];
    const flips = folded.map((v) => flipRate(v.verdicts)).filter((f): f is number => f !== null);
    return {
      system,
      questions: folded.length,
      score: bootstrapMean(folded.map((v) => v.score)),
      accuracy: answers ? bootstrapMean(folded.map((v) => v.passShare)) : null,
      flip_rate: answers && flips.length ? flips.reduce((s, f) => s + f, 0) / flips.length : null,
    };
  });
  const pairs: PairStats[] = [];
  for (let i = 0; i < systems.length; i++) {
    for (let j = i + 1; j < systems.length; j++) {
      const pair = comparePair(systems[i], systems[j], values, answers);
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

function comparePair(
  a: string,
  b: string,
  values: Map<string, Map<string, QuestionValue>>,
  answers: boolean,
): PairStats | undefined {
  const va = values.get(a);
  const vb = values.get(b);
  if (!va || !vb) return undefined;
  const shared = [...va.keys()].filter((q) => vb.has(q)).sort();
  if (shared.length === 0) return undefined;
  let onlyA = 0;
  let onlyB = 0;
  for (const q of shared) {
    const x = va.get(q)!.majority;
    const y = vb.get(q)!.majority;
    if (x && !y) onlyA++;
    if (y && !x) onlyB++;
  }
  return {
    a,
    b,
    score: pairedComparison(
      shared.map((q) => va.get(q)!.score),
      shared.map((q) => vb.get(q)!.score),
    ),
    accuracy: answers
      ? { only_a: onlyA, only_b: onlyB, p_value: mcnemarExact(onlyA, onlyB) }
      : null,
  };
}

function foldRepeats(
  lines: readonly ScoredLine[],
  metric: string,
): Map<string, Map<string, QuestionValue>> {
  const grouped = new Map<string, Map<string, Array<{ line: ScoredLine; value: number }>>>();
  for (const line of lines) {
    const value = metricValue(line, metric);
    if (value === null) continue;
    let bySystem = grouped.get(line.system);
    if (!bySystem) grouped.set(line.system, bySystem = new Map());
    let list = bySystem.get(line.question_id);
    if (!list) bySystem.set(line.question_id, list = []);
    list.push({ line, value });
  }
  const out = new Map<string, Map<string, QuestionValue>>();
  for (const [system, byQuestion] of grouped) {
    const folded = new Map<string, QuestionValue>();
    for (const [question, list] of byQuestion) {
      const ordered = [...list].sort((x, y) => x.line.repeat - y.line.repeat);
      const passes = ordered.filter((l) => l.line.passed).length;
      folded.set(question, {
        score: ordered.reduce((s, l) => s + l.value, 0) / ordered.length,
        passShare: passes / ordered.length,
        majority: passes * 2 > ordered.length,
        verdicts: ordered.map((l) => l.line.passed === true),
      });
    }
    out.set(system, folded);
  }
  return out;
}
