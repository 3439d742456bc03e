/**
 * A bounded top-k selection over scored items numbered 0..n-1: keeps the k
 * best seen so far in a binary min-heap, so a scan of n scores costs
 * O(n log k) and no more memory than k entries.
 *
 * Order: higher score first; equal scores by lower item number first (the
 * retrieval stack numbers passages in corpus order, so ties go to the
 * passage that comes first). NaN scores are refused by the callers upstream
 * (embeddings are checked to be finite), so they are not handled here.
 *
 * @module
 */

/** One selected item. */
export interface ScoredItem {
  index: number;
  score: number;
}

/** Collects the `k` best of a stream of `(score, index)` pairs. */
export class TopK {
  readonly k: number;
  #scores: Float64Array;
  #indexes: Int32Array;
  #size = 0;

  /** @throws {RangeError} when `k` is not a whole number of at least 0. */
  constructor(k: number) {
    if (!Number.isInteger(k) || k < 0) {
      throw new RangeError(`k must be a whole number >= 0, got ${k}`);
    }
    this.k = k;
    this.#scores = new Float64Array(k);
    this.#indexes = new Int32Array(k);
  }

  /** Items held (at most k). */
  get size(): number {
    return this.#size;
  }

  /**
   * The score an item must beat to enter once k items are held (-Infinity
   * before that). An item with exactly this score enters only when its
   * index is lower than the worst held item's.
   */
  get threshold(): number {
    return this.#size < this.k ? -Infinity : this.#scores[0];
  }

  /** Offers one item. */
  push(score: number, index: number): void {
    const k = this.k;
    if (this.#size < k) {
      this.#siftUp(this.#size++, score, index);
      return;
    }
    if (k === 0 || !worse(this.#scores[0], this.#indexes[0], score, index)) return;
    this.#siftDown(score, index);
  }

  /** The items held, best first. */
  sorted(): ScoredItem[] {
    const out: ScoredItem[] = [];
    for (let i = 0; i < this.#size; i++) {
      out.push({ index: this.#indexes[i], score: this.#scores[i] });
    }
    return out.sort((a, b) => b.score - a.score || a.index - b.index);
  }

  #siftUp(at: number, score: number, index: number): void {
    const scores = this.#scores;
    const indexes = this.#indexes;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!worse(score, index, scores[parent], indexes[parent])) break;
      scores[at] = scores[parent];
      indexes[at] = indexes[parent];
      at = parent;
    }
    scores[at] = score;
    indexes[at] = index;
  }

  /** Replaces the root (the worst item) and restores the heap. */
  #siftDown(score: number, index: number): void {
    const scores = this.#scores;
    const indexes = this.#indexes;
    const n = this.#size;
    let at = 0;
    while (true) {
      let child = 2 * at + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && worse(scores[right], indexes[right], scores[child], indexes[child])) {
        child = right;
      }
      if (!worse(scores[child], indexes[child], score, index)) break;
      scores[at] = scores[child];
      indexes[at] = indexes[child];
      at = child;
    }
    scores[at] = score;
    indexes[at] = index;
  }
}

/** Whether item a ranks below item b. */
function worse(scoreA: number, indexA: number, scoreB: number, indexB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && indexA > indexB);
}
