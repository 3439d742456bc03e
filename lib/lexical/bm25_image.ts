/**
 * What a saved BM25 index is: the arrays of a built `Bm25Index`
 * (`bm25.ts`), and the checks that they fit together before an index takes
 * them.
 *
 * @module
 */

import { TF_ESCAPE } from "./bm25_postings.ts";
import type { UnitTableImage } from "./unit_table.ts";

/**
 * A built index's arrays ({@link Bm25Index.image}); `idf`, `norm` and `peak`
 * were computed with the index's `k1` and `b`, so an image is only valid
 * with the options (and passages) it was built with.
 */
export interface Bm25Image {
  /** Term -> id. */
  dictionary: UnitTableImage;
  /** `offsets[t]..offsets[t+1]` is term t's slice of `postings` / `tfs` (terms + 1 entries). */
  offsets: Uint32Array;
  /** Passage numbers, ascending within a term. */
  postings: Uint32Array;
  /** Term counts, {@link TF_ESCAPE} for 255 or more. */
  tfs: Uint8Array;
  /** Postings whose count is 255 or more, and those counts. */
  bigTfKeys: Uint32Array;
  bigTfValues: Uint32Array;
  /** Per term. */
  idf: Float64Array;
  /** Per passage: k1 (1 - b + b dl / avgdl). */
  norm: Float64Array;
  /** Per term: its largest tf / (tf + norm). */
  peak: Float64Array;
}

/**
 * Refuses an image whose arrays do not fit together or `passages` (cheap checks; the
 * file holding it has its own checksums).
 */
export function checkImage(image: Bm25Image, passages: number): void {
  const terms = image.idf.length;
  const postings = image.postings.length;
  const problem = image.norm.length !== passages
    ? `${image.norm.length} passage lengths for ${passages} passages`
    : image.peak.length !== terms || image.offsets.length !== terms + 1
    ? "per-term arrays of different lengths"
    : image.offsets[0] !== 0 || image.offsets[terms] !== postings
    ? "term offsets that do not span the postings"
    : image.tfs.length !== postings || image.bigTfKeys.length !== image.bigTfValues.length
    ? "posting arrays of different lengths"
    : null;
  if (problem !== null) throw new RangeError(`BM25 index image: ${problem}`);
  for (let t = 0; t < terms; t++) {
    if (image.offsets[t] > image.offsets[t + 1]) {
      throw new RangeError(`BM25 index image: term offsets go backwards at term ${t}`);
    }
  }
  let outside = 0;
  for (let j = 0; j < postings; j++) outside |= image.postings[j] >= passages ? 1 : 0;
  if (outside !== 0) throw new RangeError(`BM25 index image: a posting of no passage`);
  for (let i = 0; i < image.bigTfKeys.length; i++) {
    if (image.bigTfKeys[i] >= postings || image.tfs[image.bigTfKeys[i]] !== TF_ESCAPE) {
      throw new RangeError(`BM25 index image: a large term count of no posting`);
    }
  }
}
