/**
 * How BM25's inverted index is built and stored (the layout is described in
 * `bm25.ts`): term ids from one `TermInterner` pass over each passage,
 * (term, count) pairs packed into a forward log of growing blocks, then
 * inverted by one counting sort into CSR postings (passage numbers
 * ascending within a term) with 8-bit counts, a count of 255 or more kept
 * exactly in a small map beside. Also the galloping search the scorer uses
 * to leap through a term's postings.
 *
 * @module
 */

import { type TermDictionary, TermInterner } from "./term_interner.ts";
import type { Analysis } from "./tokenizer.ts";
import type { Passage } from "./passages.ts";

/** The inverted index in CSR form plus passage lengths. */
export interface BuiltPostings {
  terms: TermDictionary;
  /** `offsets[t]..offsets[t+1]` is term t's slice of `postings` / `tfs`. */
  offsets: Uint32Array;
  postings: Uint32Array;
  tfs: Uint8Array;
  /** Exact counts of the postings whose `tfs` entry is {@link TF_ESCAPE}. */
  bigTfs: Map<number, number>;
  /** Indexed terms per passage (stopwords excluded). */
  lengths: Uint32Array;
}

/** Indexes the title too, unless it is empty or only repeats the document id. */
function indexesTitle(passage: Passage): boolean {
  return passage.title !== "" && passage.title !== passage.doc_id;
}

/** Counts of one passage's terms, reused from passage to passage. */
class PassageCounter {
  /** Occurrences of each term id in the current passage (0 for the others). */
  tf = new Uint32Array(1024);
  /** Distinct term ids of the current passage, in order of first occurrence. */
  seen = new Uint32Array(256);
  seenCount = 0;
  /** Indexed terms in the current passage. */
  length = 0;

  add(ids: Int32Array, termCount: number): void {
    if (termCount > this.tf.length) {
      this.tf = grow(this.tf, Math.max(termCount, this.tf.length * 2));
    }
    if (this.seenCount + ids.length > this.seen.length) {
      this.seen = grow(this.seen, (this.seenCount + ids.length) * 2);
    }
    const tf = this.tf;
    const seen = this.seen;
    let seenCount = this.seenCount;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (tf[id]++ === 0) seen[seenCount++] = id;
    }
    this.seenCount = seenCount;
    this.length += ids.length;
  }
}

/**
 * Largest block of the forward log, in pairs (8 MiB): each is freed as soon as it is inverted,
 * so smaller blocks lower the peak; larger ones cost fewer allocations.
 */
const FORWARD_BLOCK = 1 << 21;
/** Smallest block of the forward log, in pairs. */
const FORWARD_FIRST_BLOCK = 1024;
/** Packed-pair field values meaning "the real value is in the overflow map". */
const ID_ESCAPE = 0xffffff;
/** The `tfs` entry of a count of 255 or more: its exact value is in `bigTfs`. */
export const TF_ESCAPE = 0xff;

/**
 * Tokenises each passage once, writes its (term, count) pairs to a forward
 * log, and inverts the log with one counting sort into {@link BuiltPostings}.
 */
export function buildPostings(
  passages: readonly Passage[],
  analysis: Readonly<Analysis>,
  options: { kernel?: boolean },
): BuiltPostings {
  const n = passages.length;
  const interner = new TermInterner(analysis, { kernel: options.kernel });
  const counter = new PassageCounter();
  // Forward log: the (term, count) pairs of each passage, passage after passage, each packed
  // in one int (term id << 8 | count; a larger id or count is escaped to a map), in blocks
  // that are never copied to grow and are let go one by one while inverting. It and the
  // inverted index are the build's peak memory.
  const blocks: Uint32Array<ArrayBuffer>[] = [];
  let block: Uint32Array<ArrayBuffer> = EMPTY_BLOCK;
  let fill = 0;
  const bigIds = new Map<number, number>();
  const bigTfs = new Map<number, number>();
  let pairCount = 0;
  const pairEnds = new Uint32Array(n);
  const lengths = new Uint32Array(n);
  let df = new Uint32Array(1024);
  for (let p = 0; p < n; p++) {
    const passage = passages[p];
    counter.seenCount = 0;
    counter.length = 0;
    if (indexesTitle(passage)) counter.add(interner.termIds(passage.title), interner.terms.length);
    counter.add(interner.termIds(passage.text), interner.terms.length);
    const seenCount = counter.seenCount;
    if (interner.terms.length > df.length) {
      df = grow(df, Math.max(interner.terms.length, df.length * 2));
    }
    const seen = counter.seen;
    const tf = counter.tf;
    for (let i = 0; i < seenCount; i++) {
      const id = seen[i];
      if (fill === block.length) {
        block = new Uint32Array(Math.min(FORWARD_BLOCK, Math.max(FORWARD_FIRST_BLOCK, pairCount)));
        blocks.push(block);
        fill = 0;
      }
      const count = tf[id];
      let packed: number;
      if (id < ID_ESCAPE) packed = id * 256;
      else {
        packed = ID_ESCAPE * 256;
        bigIds.set(pairCount, id);
      }
      if (count < TF_ESCAPE) packed += count;
      else {
        packed += TF_ESCAPE;
        bigTfs.set(pairCount, count);
      }
      block[fill++] = packed;
      pairCount++;
      df[id]++;
      tf[id] = 0;
    }
    pairEnds[p] = pairCount;
    lengths[p] = counter.length;
  }

  // The postings and counts go where the surface forms were, when there is such memory (every
  // entry is written below, so what it held does not matter).
  const recycled = interner.recycleSurfaces(pairCount * 5);
  // Invert: a counting sort of the pairs by term; passages stay in order within a term.
  const termCount = interner.terms.length;
  const offsets = new Uint32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) offsets[t + 1] = offsets[t] + df[t];
  const cursor = offsets.slice(0, termCount);
  const postings = recycled ? new Uint32Array(recycled, 0, pairCount) : new Uint32Array(pairCount);
  const tfs = recycled
    ? new Uint8Array(recycled, pairCount * 4, pairCount)
    : new Uint8Array(pairCount);
  const postingTfs = new Map<number, number>();
  let j = 0;
  let b = 0;
  let at = 0;
  block = blocks[0] ?? EMPTY_BLOCK;
  for (let p = 0; p < n; p++) {
    const end = pairEnds[p];
    for (; j < end; j++) {
      if (at === block.length) {
        // Detaching frees the block now; left to the garbage collector it would outlive the loop.
        block.buffer.transfer(0);
        blocks[b++] = EMPTY_BLOCK;
        block = blocks[b];
        at = 0;
      }
      const packed = block[at++];
      let id = packed >>> 8;
      if (id === ID_ESCAPE) id = bigIds.get(j)!;
      let count = packed & 255;
      if (count === TF_ESCAPE) count = bigTfs.get(j)!;
      const to = cursor[id]++;
      postings[to] = p;
      if (count < TF_ESCAPE) tfs[to] = count;
      else {
        tfs[to] = TF_ESCAPE;
        postingTfs.set(to, count);
      }
    }
  }
  return { terms: interner.dictionary, offsets, postings, tfs, bigTfs: postingTfs, lengths };
}

const EMPTY_BLOCK: Uint32Array<ArrayBuffer> = new Uint32Array(0);

function grow<T extends Uint32Array | Uint16Array>(array: T, capacity: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(capacity);
  bigger.set(array);
  return bigger;
}

/** First index in `a[from..end)` whose value is >= `value` (`a[from]` < `value`), or `end`. */
export function gallop(a: Uint32Array, from: number, end: number, value: number): number {
  let lo = from; // a[lo] < value
  let step = 1;
  let hi = from + 1;
  while (hi < end && a[hi] < value) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > end) hi = end;
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < value) lo = mid;
    else hi = mid;
  }
  return hi;
}
