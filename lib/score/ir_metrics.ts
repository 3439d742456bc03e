/**
 * Information-retrieval metrics of one ranked list of document ids against
 * graded relevance judgements, computed the way NIST trec_eval 10 computes
 * them (`-c`, relevance level 1). Pure functions; the ranking passed in is
 * already in scoring order (see {@link trecOrder}) and holds each document
 * once.
 *
 * With R = the number of relevant documents (grade ≥ 1) in the judgements,
 * rel(i) = 1 when the document at rank i is relevant, g(i) its grade (0 when
 * unjudged), and k a cut-off:
 *
 * - recall@k = Σ_{i≤k} rel(i) / R
 * - precision@k = Σ_{i≤k} rel(i) / k (k, even when fewer were retrieved)
 * - MRR@k = 1 / the rank of the first relevant document if it is ≤ k, else 0
 * - hit rate@k = 1 if some relevant document is in the top k, else 0
 * - nDCG@k = DCG@k / IDCG@k, DCG@k = Σ_{i≤k} g(i) / log2(i + 1), IDCG@k the
 *   DCG@k of every judged document sorted by grade, best first
 * - MAP (average precision) = Σ_{i: rel(i)=1} precision@i / R, over the whole
 *   ranking
 *
 * @module
 */

import type { RankedDoc } from "../types.ts";

/** Relevance judgements of one question: document id → grade (≥ 1 means relevant). */
export type Judgements = ReadonlyMap<string, number>;

/** Metric values at one cut-off. */
export interface CutoffMetrics {
  recall: number;
  precision: number;
  mrr: number;
  ndcg: number;
  hit_rate: number;
}

/** The metric names at a cut-off, in column order. */
export const CUTOFF_METRICS: ReadonlyArray<keyof CutoffMetrics> = [
  "recall",
  "precision",
  "mrr",
  "ndcg",
  "hit_rate",
];

/**
 * Compares document ids the way trec_eval's `strcmp` does: by UTF-8 bytes,
 * which is code point order (JavaScript's `<` compares UTF-16 units, which
 * differs for characters above U+FFFF).
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const d = ca.value.codePointAt(0)! - cb.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/**
 * The order trec_eval evaluates a run in: score descending, ties broken by
 * document id descending, compared as strings (`"999"` before `"12"` before
 * `"1000"`). The rank column of a run file plays no part. Returns a new list.
 */
export function trecOrder(docs: readonly RankedDoc[]): RankedDoc[] {
  return [...docs].sort((a, b) => b.score - a.score || compareIds(b.doc_id, a.doc_id));
}

/** Number of relevant documents (grade ≥ 1) in the judgements. */
export function relevantCount(judgements: Judgements): number {
  let n = 0;
  for (const grade of judgements.values()) if (grade >= 1) n++;
  return n;
}

function isRelevant(judgements: Judgements, id: string): boolean {
  return (judgements.get(id) ?? 0) >= 1;
}

function relevantInTop(ranking: readonly string[], judgements: Judgements, k: number): number {
  let n = 0;
  const end = Math.min(k, ranking.length);
  for (let i = 0; i < end; i++) if (isRelevant(judgements, ranking[i])) n++;
  return n;
}

/** recall@k; 0 when there is nothing relevant to find. */
export function recallAt(ranking: readonly string[], judgements: Judgements, k: number): number {
  const r = relevantCount(judgements);
  return r === 0 ? 0 : relevantInTop(ranking, judgements, k) / r;
}

/** precision@k, always divided by k. */
export function precisionAt(ranking: readonly string[], judgements: Judgements, k: number): number {
  return relevantInTop(ranking, judgements, k) / k;
}

/** Reciprocal rank of the first relevant document within the top k (default: all). */
export function reciprocalRank(
  ranking: readonly string[],
  judgements: Judgements,
  k = Infinity,
): number {
  const end = Math.min(k, ranking.length);
  for (let i = 0; i < end; i++) if (isRelevant(judgements, ranking[i])) return 1 / (i + 1);
  return 0;
}

/** hit rate@k: 1 when a relevant document is in the top k, else 0. */
export function hitAt(ranking: readonly string[], judgements: Judgements, k: number): number {
  return relevantInTop(ranking, judgements, k) > 0 ? 1 : 0;
}

/** nDCG@k with the grades as gains and a log2(rank + 1) discount; 0 when IDCG is 0. */
export function ndcgAt(ranking: readonly string[], judgements: Judgements, k: number): number {
  let dcg = 0;
  const end = Math.min(k, ranking.length);
  for (let i = 0; i < end; i++) {
    const gain = Math.max(0, judgements.get(ranking[i]) ?? 0);
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  }
  const ideal = [...judgements.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i] / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Average precision over the whole ranking (the per-question term of MAP). */
export function averagePrecision(ranking: readonly string[], judgements: Judgements): number {
  const r = relevantCount(judgements);
  if (r === 0) return 0;
  let found = 0;
  let sum = 0;
  ranking.forEach((id, i) => {
    if (isRelevant(judgements, id)) sum += ++found / (i + 1);
  });
  return sum / r;
}

/** Every metric at one cut-off. */
export function cutoffMetrics(
  ranking: readonly string[],
  judgements: Judgements,
  k: number,
): CutoffMetrics {
  return {
    recall: recallAt(ranking, judgements, k),
    precision: precisionAt(ranking, judgements, k),
    mrr: reciprocalRank(ranking, judgements, k),
    ndcg: ndcgAt(ranking, judgements, k),
    hit_rate: hitAt(ranking, judgements, k),
  };
}

/**
 * The flat metric record of one question: `map`, then `<metric>@<k>` for each
 * metric of {@link CUTOFF_METRICS} and each cut-off (grouped by metric, cut-offs
 * in the order given). Its keys are {@link metricKeys}.
 */
export function questionMetrics(
  ranking: readonly string[],
  judgements: Judgements,
  cutoffs: readonly number[],
): Record<string, number> {
  const out: Record<string, number> = { map: averagePrecision(ranking, judgements) };
  const at = cutoffs.map((k) => cutoffMetrics(ranking, judgements, k));
  for (const name of CUTOFF_METRICS) {
    cutoffs.forEach((k, i) => (out[`${name}@${k}`] = at[i][name]));
  }
  return out;
}

/** The keys of {@link questionMetrics} for these cut-offs, in order. */
export function metricKeys(cutoffs: readonly number[]): string[] {
  return ["map", ...CUTOFF_METRICS.flatMap((name) => cutoffs.map((k) => `${name}@${k}`))];
}
