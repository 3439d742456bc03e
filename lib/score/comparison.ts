/**
 * Per-system uncertainty and pairwise comparisons from result lines.
 *
 * Unit of analysis: the question. A question's value for a system is the
 * mean over its repeats (answer score), its share of passing repeats
 * (accuracy), and, for McNemar, its majority verdict (passed in more than
 * half of its repeats). Lines whose answer score is null (questions with no
 * answer checks, such as retrieval-only data sets) are left out of the
 * answer statistics. Two systems are compared on the questions both ran.
 * The tests and intervals are in `significance.ts`.
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
  /** Distinct questions with an answer score. */
  questions: number;
  score: Interval | null;
  accuracy: Interval | null;
  /** Mean over questions of {@link flipRate}; null with a single repeat. */
  flip_rate: number | null;
}

/** Two systems on the questions both ran (a − b). */
export interface PairStats {
  a: string;
  b: string;
  score: PairedComparison;
  accuracy: {
    /** Questions whose majority verdict is correct for a only / b only. */
    only_a: number;
    only_b: number;
    /** Exact McNemar p-value. */
    p_value: number;
  };
}

/** The statistics of a run. */
export interface RunStats {
  systems: SystemStats[];
  /** Every pair of systems (in system order, a before b) sharing at least one question. */
  pairs: PairStats[];
}

/** Computes the statistics of `lines` for `systems` (in the given order). */
export function runStats(systems: readonly string[], lines: readonly ScoredLine[]): RunStats {
  const values = foldRepeats(lines);
  const perSystem = systems.map((system) => {
    const byQuestion = values.get(system) ?? new Map<string, QuestionValue>();
    const folded = [...byQuestion.values()];
    const flips = folded.map((v) => flipRate(v.verdicts)).filter((f): f is number => f !== null);
    return {
      system,
      questions: folded.length,
      score: bootstrapMean(folded.map((v) => v.score)),
      accuracy: bootstrapMean(folded.map((v) => v.passShare)),
      flip_rate: flips.length ? flips.reduce((s, f) => s + f, 0) / flips.length : null,
    };
  });
  const pairs: PairStats[] = [];
  for (let i = 0; i < systems.length; i++) {
    for (let j = i + 1; j < systems.length; j++) {
      const pair = comparePair(systems[i], systems[j], values);
      if (pair) pairs.push(pair);
    }
  }
  return { systems: perSystem, pairs };
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
    accuracy: {
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
    accuracy: { only_a: onlyA, only_b: onlyB, p_value: mcnemarExact(onlyA, onlyB) },
  };
}

function foldRepeats(lines: readonly ScoredLine[]): Map<string, Map<string, QuestionValue>> {
  const grouped = new Map<string, Map<string, ScoredLine[]>>();
  for (const line of lines) {
    if (line.answer_score === null) continue;
    let bySystem = grouped.get(line.system);
    if (!bySystem) grouped.set(line.system, bySystem = new Map());
    let list = bySystem.get(line.question_id);
    if (!list) bySystem.set(line.question_id, list = []);
    list.push(line);
  }
  const out = new Map<string, Map<string, QuestionValue>>();
  for (const [system, byQuestion] of grouped) {
    const folded = new Map<string, QuestionValue>();
    for (const [question, list] of byQuestion) {
      const ordered = [...list].sort((x, y) => x.repeat - y.repeat);
      const passes = ordered.filter((l) => l.passed).length;
      folded.set(question, {
        score: ordered.reduce((s, l) => s + (l.answer_score ?? 0), 0) / ordered.length,
        passShare: passes / ordered.length,
        majority: passes * 2 > ordered.length,
        verdicts: ordered.map((l) => l.passed === true),
      });
    }
    out.set(system, folded);
  }
  return out;
}
