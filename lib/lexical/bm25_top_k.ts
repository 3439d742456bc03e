/**
 * The last step of a BM25 search: picking the best passages among those the
 * query touched, over the scorer's accumulator (`scores`, indexed by passage
 * number, and the `touched` list of passage numbers that got a score).
 * Insertion for small `k`, a min-heap beyond; ties rank by passage number,
 * so the order is the corpus order. `kthScore` is the MaxScore threshold.
 *
 * @module
 */

/** The `k`-th highest of the scores of `touched[0..count)` (count >= k). */
export function kthScore(
  scores: Float64Array,
  touched: Uint32Array,
  count: number,
  k: number,
): number {
  // A min-heap of the k best scores seen.
  const heap = new Float64Array(k);
  let size = 0;
  for (let i = 0; i < count; i++) {
    const s = scores[touched[i]];
    if (size < k) {
      let at = size++;
      while (at > 0 && heap[(at - 1) >> 1] > s) {
        heap[at] = heap[(at - 1) >> 1];
        at = (at - 1) >> 1;
      }
      heap[at] = s;
    } else if (s > heap[0]) {
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= k) break;
        const child = left + 1 < k && heap[left + 1] < heap[left] ? left + 1 : left;
        if (heap[child] >= s) break;
        heap[at] = heap[child];
        at = child;
      }
      heap[at] = s;
    }
  }
  return heap[0];
}

/**
 * `[passage number, score]` of the `k` highest scores among `touched[0..count)`,
 * best first; ties by passage number.
 */
export function topK(
  scores: Float64Array,
  touched: Uint32Array,
  count: number,
  k: number,
): Array<[number, number]> {
  // Insertion into a sorted array is fastest for the small k of tool calls; a deep ranking
  // (retrieval_only with top_k 1000) uses a heap, so the cost stays O(count log k).
  if (k > SMALL_K) return topKByHeap(scores, touched, count, k);
  const size = Math.min(k, count);
  const bestP = new Int32Array(size);
  const bestS = new Float64Array(size);
  let m = 0;
  for (let i = 0; i < count; i++) {
    const p = touched[i];
    const s = scores[p];
    if (m === size) {
      const ws = bestS[m - 1];
      if (s < ws || (s === ws && p > bestP[m - 1])) continue;
      m--;
    }
    let j = m;
    while (j > 0 && (bestS[j - 1] < s || (bestS[j - 1] === s && bestP[j - 1] > p))) {
      bestS[j] = bestS[j - 1];
      bestP[j] = bestP[j - 1];
      j--;
    }
    bestS[j] = s;
    bestP[j] = p;
    m++;
  }
  const out: Array<[number, number]> = [];
  for (let i = 0; i < m; i++) out.push([bestP[i], bestS[i]]);
  return out;
}

/** Largest k selected by insertion (see {@link topK}). */
const SMALL_K = 64;

/** Whether passage `p` with score `s` ranks below passage `q` with score `t`. */
function worse(s: number, p: number, t: number, q: number): boolean {
  return s < t || (s === t && p > q);
}

/** {@link topK} with a min-heap of the k best (worst at the root), then one sort. */
function topKByHeap(
  scores: Float64Array,
  touched: Uint32Array,
  count: number,
  k: number,
): Array<[number, number]> {
  const size = Math.min(k, count);
  const heapP = new Int32Array(size);
  const heapS = new Float64Array(size);
  let m = 0;
  const siftDown = (at: number) => {
    const p = heapP[at];
    const s = heapS[at];
    for (;;) {
      const left = 2 * at + 1;
      if (left >= m) break;
      const right = left + 1;
      const child = right < m && worse(heapS[right], heapP[right], heapS[left], heapP[left])
        ? right
        : left;
      if (!worse(heapS[child], heapP[child], s, p)) break;
      heapP[at] = heapP[child];
      heapS[at] = heapS[child];
      at = child;
    }
    heapP[at] = p;
    heapS[at] = s;
  };
  for (let i = 0; i < count; i++) {
    const p = touched[i];
    const s = scores[p];
    if (m < size) {
      let at = m++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!worse(s, p, heapS[parent], heapP[parent])) break;
        heapP[at] = heapP[parent];
        heapS[at] = heapS[parent];
        at = parent;
      }
      heapP[at] = p;
      heapS[at] = s;
    } else if (worse(heapS[0], heapP[0], s, p)) {
      heapP[0] = p;
      heapS[0] = s;
      siftDown(0);
    }
  }
  const out: Array<[number, number]> = [];
  for (let i = 0; i < m; i++) out.push([heapP[i], heapS[i]]);
  out.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return out;
}
