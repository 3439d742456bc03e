/**
 * Reciprocal Rank Fusion (Cormack, Clarke and Büttcher, SIGIR 2009): merges
 * rankings by rank alone, so scores on different scales (BM25's unbounded
 * sums, cosine similarities) need no calibration.
 *
 *     fused(p) = Σ over rankings r that contain p of  weight_r / (k + rank_r(p))
 *
 * with ranks counted from 1 and `k` = 60 by default. A passage missing from
 * a ranking gets nothing from it. Ties in the fused score go to the passage
 * that comes first in passage order.
 *
 * @module
 */

import type { ScoredItem } from "./top_k.ts";

/** One ranking to fuse: passage numbers, best first, and its weight. */
export interface WeightedRanking {
  items: readonly number[];
  weight: number;
}

/**
 * The fused ranking of `rankings` (see the module docs), best first, cut to
 * `limit` items.
 *
 * @throws {RangeError} when `k` is not positive or a weight is negative.
 */
export function reciprocalRankFusion(
  rankings: readonly WeightedRanking[],
  k: number,
  limit = Infinity,
): ScoredItem[] {
  if (!(k > 0)) throw new RangeError(`k must be positive, got ${k}`);
  const fused = new Map<number, number>();
  for (const { items, weight } of rankings) {
    if (!(weight >= 0)) throw new RangeError(`weights must be >= 0, got ${weight}`);
    const seen = new Set<number>();
    for (let r = 0; r < items.length; r++) {
      const item = items[r];
      if (seen.has(item)) continue; // a ranking lists a passage once; keep its best rank
      seen.add(item);
      fused.set(item, (fused.get(item) ?? 0) + weight / (k + r + 1));
    }
  }
  return [...fused].map(([index, score]) => ({ index, score }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit);
}
