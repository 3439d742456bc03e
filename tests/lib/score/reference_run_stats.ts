/**
 * `runStats` as it was before the statistics were made fast for big runs (`lib/score/comparison.ts`
 * and `significance.ts` at main e01c490, comments dropped; the test itself in
 * `reference_sign_flip.ts`): the straightforward reference the property tests hold the fast path
 * to, value for value. Not used by ragbench.
 *
 * @module
 */

import {
  metricValue,
  type PairStats,
  type RunStats,
  type ScoredLine,
} from "../../../lib/score/comparison.ts";
import type { Interval, PairedComparison } from "../../../lib/score/significance.ts";
import { createRng } from "../../../lib/util/prng.ts";
import { signFlipTest } from "./reference_sign_flip.ts";

const ANSWER_SCORE = "answer_score";
const STATS_SEED = 20_260_101;
const BOOTSTRAP_RESAMPLES = 2000;
const NORMAL_MIN_N = 200;
const MIN_DIFFERING = 6;

interface QuestionValue {
  score: number;
  passShare: number;
  majority: boolean;
  verdicts: boolean[];
}

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

function bootstrapMean(
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
  const test = signFlipTest(a.map((value, i) => value - b[i]), {
    seed: options.seed ?? STATS_SEED,
    bounds: [min - max, max - min],
    ...(options.resamples === undefined ? {} : { resamples: options.resamples }),
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

export function mcnemarExact(onlyA: number, onlyB: number): number {
  for (const count of [onlyA, onlyB]) {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`McNemar counts must be non-negative integers, got ${count}`);
    }
  }
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  const k = Math.min(onlyA, onlyB);
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let cdf = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log(n - i + 1) - Math.log(i);
    cdf += Math.exp(logTerm);
  }
  return Math.min(1, 2 * cdf);
}

function flipRate(verdicts: readonly boolean[]): number | null {
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

function quantile(sorted: Float64Array, q: number): number {
  const position = q * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}
