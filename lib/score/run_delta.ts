/**
 * What changed between two runs of the same benchmark (`ragbench compare A
 * B`): for each system both runs have, the answer-score difference B − A on
 * the questions both ran (repeats averaged within a question), with its
 * paired-bootstrap interval and sign-flip p-value, and the change in cost
 * per question and median latency. A regression beyond a threshold is a
 * drop larger than the threshold whose interval lies wholly below zero —
 * the condition a CI gate fails on.
 *
 * @module
 */

import { percentile } from "./stats.ts";
import { type PairedComparison, pairedComparison } from "./significance.ts";

/** The fields of a result line a comparison reads. */
export interface DeltaLine {
  system: string;
  question_id: string;
  repeat: number;
  answer_score: number | null;
  /** Null when unknown (a model with no known price). */
  cost_usd: number | null;
  latency_ms: number;
}

/** One system's change from run A to run B. */
export interface SystemDelta {
  system: string;
  /** Questions both runs scored for this system. */
  shared: number;
  scoreA: number | null;
  scoreB: number | null;
  /** B − A on the shared questions; null when none is shared. */
  score: PairedComparison | null;
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

/** Compares the lines of run A with those of run B. */
export function runDelta(a: readonly DeltaLine[], b: readonly DeltaLine[]): RunDelta {
  const groupedA = group(a);
  const groupedB = group(b);
  const systems: SystemDelta[] = [];
  for (const [system, linesA] of groupedA) {
    const linesB = groupedB.get(system);
    if (!linesB) continue;
    const scoresA = foldScores(linesA);
    const scoresB = foldScores(linesB);
    const shared = [...scoresA.keys()].filter((q) => scoresB.has(q)).sort();
    systems.push({
      system,
      shared: shared.length,
      scoreA: meanOf([...scoresA.values()]),
      scoreB: meanOf([...scoresB.values()]),
      score: shared.length
        ? pairedComparison(shared.map((q) => scoresB.get(q)!), shared.map((q) => scoresA.get(q)!))
        : null,
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

/** The systems whose score dropped by more than `threshold` with the interval below zero. */
export function regressions(delta: RunDelta, threshold: number): SystemDelta[] {
  return delta.systems.filter((s) =>
    s.score !== null && s.score.diff.mean < -threshold && s.score.diff.high < 0
  );
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

function foldScores(lines: readonly DeltaLine[]): Map<string, number> {
  const sums = new Map<string, { total: number; n: number }>();
  for (const line of lines) {
    if (line.answer_score === null) continue;
    const s = sums.get(line.question_id) ?? { total: 0, n: 0 };
    s.total += line.answer_score;
    s.n++;
    sums.set(line.question_id, s);
  }
  return new Map([...sums].map(([q, s]) => [q, s.total / s.n]));
}

function meanOf(values: readonly number[]): number | null {
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
}
