/**
 * What changed between two runs of the same benchmark (`ragbench compare A
 * B`): for each system both runs have, the change B − A of its metric on the
 * questions both ran (repeats averaged within a question), with the interval
 * and p-value of the one paired test (`significance.ts`), and the change in
 * cost per question and median latency. A system with answers is compared on
 * its answer score; a system without any (retrieval_only, a BEIR data set)
 * on a retrieval metric, nDCG@10 unless another is asked for. A regression
 * beyond a threshold is a drop larger than the threshold whose interval lies
 * wholly below zero — the condition a CI gate fails on. Each change carries
 * the depth each run's rankings were cut to, so the reports can mark a
 * figure that counts fewer documents than it names.
 *
 * @module
 */

import { percentile } from "./stats.ts";
import { ANSWER_SCORE, metricValue } from "./comparison.ts";
import { fewestRanked } from "./shallow_figures.ts";
import { type PairedComparison, pairedComparison } from "./significance.ts";

/** The retrieval metric systems without answers are compared on by default. */
export const DEFAULT_RETRIEVAL_METRIC = "ndcg@10";

/** The fields of a result line a comparison reads. */
export interface DeltaLine {
  system: string;
  question_id: string;
  repeat: number;
  answer_score: number | null;
  /** Null when unknown (a model with no known price). */
  cost_usd: number | null;
  latency_ms: number;
  /** Its retrieval metrics, and the depth its ranking was cut to (see `shallow_figures.ts`). */
  retrieval?: { metrics: Record<string, number> | null; depth?: number | null };
}

/** One system's change of one metric from run A to run B. */
export interface MetricDelta {
  system: string;
  /** What it is compared on: `answer_score`, or a retrieval metric. */
  metric: string;
  /** Questions both runs have a value of the metric for. */
  shared: number;
  /** Mean of the metric over each run's own questions. */
  scoreA: number | null;
  scoreB: number | null;
  /** B − A on the shared questions; null when none is shared. */
  score: PairedComparison | null;
  /**
   * The fewest documents a ranking of the system held in each run when its
   * retriever's `top_k` cut it short; null when none was cut. A figure at a
   * cut-off above it counts fewer documents than it names (`isShallow`).
   */
  depthA: number | null;
  depthB: number | null;
}

/** One system's change from run A to run B: its metric, cost and latency. */
export interface SystemDelta extends MetricDelta {
  /** Mean cost per line; null when some line's cost is unknown. */
  costA: number | null;
  costB: number | null;
  p50A: number | null;
  p50B: number | null;
}

/** The comparison of two runs. */
export interface RunDelta {
  systems: SystemDelta[];
  onlyA: string[];
  onlyB: string[];
}

/**
 * Compares the lines of run A with those of run B; systems without any
 * answer score in either run are compared on `retrievalMetric` (default
 * {@link DEFAULT_RETRIEVAL_METRIC}).
 */
export function runDelta(
  a: readonly DeltaLine[],
  b: readonly DeltaLine[],
  options: { retrievalMetric?: string } = {},
): RunDelta {
  const retrievalMetric = options.retrievalMetric ?? DEFAULT_RETRIEVAL_METRIC;
  const groupedA = group(a);
  const groupedB = group(b);
  const systems: SystemDelta[] = [];
  for (const [system, linesA] of groupedA) {
    const linesB = groupedB.get(system);
    if (!linesB) continue;
    const answers = [...linesA, ...linesB].some((l) => l.answer_score !== null);
    systems.push({
      ...change(system, linesA, linesB, answers ? ANSWER_SCORE : retrievalMetric),
      costA: meanCost(linesA),
      costB: meanCost(linesB),
      p50A: percentile(linesA.map((l) => l.latency_ms), 50),
      p50B: percentile(linesB.map((l) => l.latency_ms), 50),
    });
  }
  return {
    systems,
    onlyA: [...groupedA.keys()].filter((s) => !groupedB.has(s)),
    onlyB: [...groupedB.keys()].filter((s) => !groupedA.has(s)),
  };
}

/**
 * The change B − A of `metric` (a retrieval metric such as `ndcg@10`, or
 * the answer score) for each system both runs have and some line of which
 * has the metric, with the same paired test as {@link runDelta}.
 */
export function metricDeltas(
  a: readonly DeltaLine[],
  b: readonly DeltaLine[],
  metric: string,
): MetricDelta[] {
  const groupedB = group(b);
  const out: MetricDelta[] = [];
  for (const [system, linesA] of group(a)) {
    const linesB = groupedB.get(system);
    if (!linesB) continue;
    const delta = change(system, linesA, linesB, metric);
    if (delta.scoreA !== null || delta.scoreB !== null) out.push(delta);
  }
  return out;
}

/** The systems whose metric dropped by more than `threshold` with the interval below zero. */
export function regressions(delta: RunDelta, threshold: number): SystemDelta[] {
  return delta.systems.filter((s) =>
    s.score !== null && s.score.diff.mean < -threshold && s.score.diff.high < 0
  );
}

/** The paired change of `metric` of one system, on the questions both runs have it for. */
function change(
  system: string,
  linesA: readonly DeltaLine[],
  linesB: readonly DeltaLine[],
  metric: string,
): MetricDelta {
  const scoresA = foldScores(linesA, metric);
  const scoresB = foldScores(linesB, metric);
  const shared = [...scoresA.keys()].filter((q) => scoresB.has(q)).sort();
  return {
    system,
    metric,
    shared: shared.length,
    scoreA: meanOf([...scoresA.values()]),
    scoreB: meanOf([...scoresB.values()]),
    score: shared.length
      ? pairedComparison(shared.map((q) => scoresB.get(q)!), shared.map((q) => scoresA.get(q)!))
      : null,
    depthA: fewestRanked(linesA),
    depthB: fewestRanked(linesB),
  };
}

/** The mean cost of `lines`; null (unknown) when any line's is. */
function meanCost(lines: readonly DeltaLine[]): number | null {
  const costs = lines.map((l) => l.cost_usd);
  return costs.some((c) => c === null) ? null : meanOf(costs as number[]);
}

function group(lines: readonly DeltaLine[]): Map<string, DeltaLine[]> {
  const out = new Map<string, DeltaLine[]>();
  for (const line of lines) {
    let list = out.get(line.system);
    if (!list) out.set(line.system, list = []);
    list.push(line);
  }
  return out;
}

function foldScores(lines: readonly DeltaLine[], metric: string): Map<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  for (const line of lines) {
    const value = metricValue(line, metric);
    if (value === null) continue;
    const s = sums.get(line.question_id) ?? { total: 0, n: 0 };
    s.total += value;
    s.n++;
    sums.set(line.question_id, s);
  }
  return new Map([...sums].map(([q, s]) => [q, s.total / s.n]));
}

function meanOf(values: readonly number[]): number | null {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
}
