/**
 * Okapi BM25 over passages: ragbench's one deterministic lexical retriever.
 *
 * Scoring, for a query whose terms (see `tokenizer.ts`) include the distinct
 * term `t` `qtf(t)` times, and a passage `p` of `dl` terms, in a collection of
 * `N` passages whose mean length is `avgdl`, where `df(t)` passages contain
 * `t`, `tf` times in `p`:
 *
 *     idf(t)     = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
 *     score(p)   = sum over t of qtf(t) * idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
 *
 * with `k1` = 1.5 (how quickly repeats of a term stop adding score) and
 * `b` = 0.75 (how strongly long passages are penalised) by default: the
 * defaults of rank_bm25 and bm25s, inside the 1.2-2.0 range Robertson and
 * Zaragoza recommend for `k1` (Lucene and FTS5 use 1.2; Anserini 0.9/0.4,
 * tuned for MS MARCO passages). This idf
 * (Lucene's) is always positive, so a term found in most passages still adds
 * a little rather than subtracting.
 *
 * Query term frequency (`queryRepeats`): with `once` (the default) a term
 * that occurs twice in the query counts once (`qtf` = 1 for every term, as
 * in SQLite FTS5, which counts each distinct phrase once; Okapi's query-term
 * saturation `(k3 + 1) qtf / (k3 + qtf)` with `k3` = 0); with `count` it
 * counts twice (`qtf` is a plain multiplier, no saturation), as in Lucene,
 * whose query parser makes one SHOULD clause per query token, and in
 * rank_bm25 and bm25s, which sum the score of every query token. Long
 * natural-language queries repeat words that carry little ("used" three
 * times in one MED query), which is why `once` measured better on MED
 * (+0.021 nDCG@10) and no worse on Cranfield and NPL.
 * A passage's indexed text is its document's title (unless the title is empty
 * or just repeats the document id) followed by the passage text.
 *
 * Determinism: the query's distinct terms are scored in a fixed order (fewest
 * passages first, then alphabetically), so word order in the query cannot
 * change a score even in the last bit; scores are 64-bit floats; equal
 * scores rank by passage order (corpus order, then position in the
 * document).
 *
 * Layout, chosen so a 100,000-document corpus indexes in seconds and in
 * about a hundred megabytes (`scripts/bench_retrieval.ts` measures it
 * against SQLite FTS5): term ids from one hash table (`TermDictionary`);
 * postings as one `Uint32Array` of passage numbers and one `Uint8Array` of
 * term counts (a count of 255 or more is stored as 255, its exact value in a
 * small map beside), sliced per term by an offsets array (CSR),
 * passage numbers ascending within a term; term-at-a-time scoring into a
 * reusable `Float64Array` accumulator that remembers which passages it
 * touched, then a top-k selection over those only. Exact dynamic pruning
 * (MaxScore) skips most of a common term's postings: once the k-th best
 * score so far exceeds the most the remaining terms could add, those terms
 * only update the passages already found, leaping through their postings.
 * The results are the same as scoring every posting. The build tokenises each
 * passage once (`TermInterner`), writes (term, count) pairs passage by
 * passage, and inverts them with one counting sort.
 *
 * @module
 */

import { type TermDictionary, TermInterner } from "./term_interner.ts";
import { type Analysis, DEFAULT_ANALYSIS, tokenize } from "./tokenizer.ts";
import type { Passage } from "./passages.ts";

/** BM25 parameters (see the module documentation). */
export interface Bm25Options {
  /** Term-frequency saturation, >= 0 (default {@link BM25_K1}). */
  k1?: number;
  /** Length normalisation, 0..1 (default {@link BM25_B}). */
  b?: number;
  /** Stopwords and stemmer of documents and queries (default {@link DEFAULT_ANALYSIS}). */
  analysis?: Readonly<Analysis>;
  /** How a term the query repeats counts (default {@link BM25_QUERY_REPEATS}). */
  queryRepeats?: QueryRepeats;
  /**
   * @internal `false` tokenises with the JavaScript scan instead of the WebAssembly kernel
   * (`TermInterner`'s option), so tests can hold the two builds to the same index.
   */
  kernel?: boolean;
}

/** Default `k1`. */
export const BM25_K1 = 1.5;
/** Default `b`. */
export const BM25_B = 0.75;

/** `once`: a term the query repeats counts once; `count`: each time (see the module documentation). */
export type QueryRepeats = "once" | "count";
/** Default `queryRepeats`. */
export const BM25_QUERY_REPEATS: QueryRepeats = "once";

/** One ranked passage. */
export interface SearchHit {
  passage: Passage;
  /** BM25 score, > 0; higher is better. */
  score: number;
}

/** Sizes of a built index. */
export interface Bm25Stats {
  passages: number;
  /** Distinct terms. */
  terms: number;
  /** (term, passage) pairs. */
  postings: number;
  /** Bytes held in the index's typed arrays. */
  bytes: number;
}

/** A BM25 index over a fixed list of passages, built once in the constructor. */
export class Bm25Index {
  /** The indexed passages, in the order that breaks ties. */
  readonly passages: readonly Passage[];
  /** The `k1` in use. */
  readonly k1: number;
  /** The `b` in use. */
  readonly b: number;
  /** The stopwords and stemmer in use. */
  readonly analysis: Readonly<Analysis>;
  /** How a term the query repeats counts. */
  readonly queryRepeats: QueryRepeats;
  #terms: TermDictionary;
  #offsets: Uint32Array;
  #postings: Uint32Array;
  #tfs: Uint8Array;
  /** Exact term counts of the postings whose `#tfs` entry is {@link TF_ESCAPE}, by posting. */
  #bigTfs: Map<number, number>;
  #idf: Float64Array;
  #norm: Float64Array;
  /** Per term: its largest tf / (tf + norm) over the passages holding it (< 1). */
  #peak: Float64Array;
  #scores: Float64Array;
  #touched: Uint32Array;

  /**
   * Indexes `passages` (kept by reference: do not change them afterwards).
   *
   * @throws {RangeError} when `k1` is negative or `b` is outside 0..1.
   */
  constructor(passages: readonly Passage[], options: Bm25Options = {}) {
    const k1 = options.k1 ?? BM25_K1;
    const b = options.b ?? BM25_B;
    if (!(k1 >= 0 && Number.isFinite(k1))) throw new RangeError(`k1 must be >= 0, got ${k1}.`);
    if (!(b >= 0 && b <= 1)) throw new RangeError(`b must be between 0 and 1, got ${b}.`);
    this.passages = passages;
    this.k1 = k1;
    this.b = b;
    this.analysis = options.analysis ?? DEFAULT_ANALYSIS;
    this.queryRepeats = options.queryRepeats ?? BM25_QUERY_REPEATS;
    const built = buildPostings(passages, this.analysis, { kernel: options.kernel });
    this.#terms = built.terms;
    this.#offsets = built.offsets;
    this.#postings = built.postings;
    this.#tfs = built.tfs;
    this.#bigTfs = built.bigTfs;
    const n = passages.length;
    this.#idf = new Float64Array(built.terms.size);
    for (let t = 0; t < this.#idf.length; t++) {
      const df = built.offsets[t + 1] - built.offsets[t];
      this.#idf[t] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    }
    let totalLength = 0;
    for (let p = 0; p < n; p++) totalLength += built.lengths[p];
    const avgdl = n > 0 && totalLength > 0 ? totalLength / n : 1;
    this.#norm = new Float64Array(n);
    for (let p = 0; p < n; p++) this.#norm[p] = k1 * (1 - b + b * built.lengths[p] / avgdl);
    this.#peak = new Float64Array(built.terms.size);
    for (let t = 0; t < this.#peak.length; t++) {
      let peak = 0;
      for (let j = built.offsets[t]; j < built.offsets[t + 1]; j++) {
        const tf = this.#tf(j);
        const v = tf / (tf + this.#norm[built.postings[j]]);
        if (v > peak) peak = v;
      }
      this.#peak[t] = peak;
    }
    this.#scores = new Float64Array(n);
    this.#touched = new Uint32Array(n);
  }

  /**
   * The `k` best passages for `query`, best first; equal scores in passage
   * order. Empty when no query term is in the index, including when the
   * query has no searchable terms at all (check with {@link queryTerms} to
   * tell the two apart).
   *
   * @throws {RangeError} when `k` is not a whole number >= 1.
   */
  search(query: string, k: number): SearchHit[] {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a whole number >= 1.`);
    const qtf = new Map<string, number>();
    const once = this.queryRepeats === "once";
    for (const term of this.queryTerms(query)) {
      qtf.set(term, once ? 1 : (qtf.get(term) ?? 0) + 1);
    }
    const terms: Array<{ term: string; id: number; df: number; qtf: number }> = [];
    for (const [term, count] of qtf) {
      const id = this.#terms.idOf(term);
      if (id !== undefined) {
        terms.push({ term, id, df: this.#offsets[id + 1] - this.#offsets[id], qtf: count });
      }
    }
    if (terms.length === 0) return [];
    // Rarest first, so the best candidates are known before the long posting lists.
    terms.sort((x, y) => x.df - y.df || (x.term < y.term ? -1 : x.term > y.term ? 1 : 0));
    const weights = terms.map((t) => t.qtf * this.#idf[t.id] * (this.k1 + 1));
    // bound[i]: the most that terms i.. can add to any passage.
    const bound = new Float64Array(terms.length + 1);
    for (let i = terms.length - 1; i >= 0; i--) {
      bound[i] = bound[i + 1] + weights[i] * this.#peak[terms[i].id];
    }
    let count = 0;
    let pruned = false;
    for (let i = 0; i < terms.length; i++) {
      // MaxScore: once the k-th best score so far beats everything the remaining terms could
      // give a passage, no passage outside the candidates can reach the top k (nor tie). No
      // score so far exceeds bound[0] - bound[i], so below that there is nothing to check.
      const rest = bound[i] * (1 + 1e-9);
      if (!pruned && i > 0 && count >= k && rest < bound[0] - bound[i]) {
        const kth = kthScore(this.#scores, this.#touched, count, k);
        if (rest < kth) {
          pruned = true;
          count = this.#dropHopeless(count, kth - rest);
          this.#touched.subarray(0, count).sort();
        }
      } else if (pruned && i + 1 < terms.length) {
        // Scores only grow, so the k-th best so far is a floor for the final k-th best.
        count = this.#dropHopeless(count, kthScore(this.#scores, this.#touched, count, k) - rest);
      }
      if (pruned) this.#addToCandidates(terms[i].id, weights[i], count);
      else count = this.#accumulate(terms[i].id, weights[i], count);
    }
    const best = topK(this.#scores, this.#touched, count, k);
    for (let i = 0; i < count; i++) this.#scores[this.#touched[i]] = 0;
    return best.map(([p, score]) => ({ passage: this.passages[p], score }));
  }

  /** The terms `query` is searched with, in order, repeats kept (empty: nothing searchable). */
  queryTerms(query: string): string[] {
    return tokenize(query, this.analysis);
  }

  /**
   * Drops from the candidates `touched[0..count)` (keeping their order) every passage scoring
   * below `floor`: even with all the remaining terms it stays below the k-th best, so it can
   * neither enter the top k nor tie with it. Its score is reset to 0 (not a candidate).
   * Returns the new count.
   */
  #dropHopeless(count: number, floor: number): number {
    const scores = this.#scores;
    const touched = this.#touched;
    let kept = 0;
    for (let c = 0; c < count; c++) {
      const p = touched[c];
      if (scores[p] >= floor) touched[kept++] = p;
      else scores[p] = 0;
    }
    return kept;
  }

  /** Adds term `id`'s contribution to every passage holding it; returns the new touched count. */
  #accumulate(id: number, weight: number, count: number): number {
    const scores = this.#scores;
    const touched = this.#touched;
    const norm = this.#norm;
    const postings = this.#postings;
    const tfs = this.#tfs;
    const end = this.#offsets[id + 1];
    for (let j = this.#offsets[id]; j < end; j++) {
      const p = postings[j];
      let tf = tfs[j];
      if (tf === TF_ESCAPE) tf = this.#tf(j);
      const before = scores[p];
      if (before === 0) touched[count++] = p;
      scores[p] = before + weight * tf / (tf + norm[p]);
    }
    return count;
  }

  /**
   * Adds term `id`'s contribution to the candidates `touched[0..count)` (sorted) only,
   * leaping through the posting list when the candidates are few.
   */
  #addToCandidates(id: number, weight: number, count: number): void {
    const scores = this.#scores;
    const touched = this.#touched;
    const norm = this.#norm;
    const postings = this.#postings;
    const tfs = this.#tfs;
    const end = this.#offsets[id + 1];
    let j = this.#offsets[id];
    if (count * 8 >= end - j) {
      for (; j < end; j++) {
        const p = postings[j];
        const before = scores[p];
        if (before === 0) continue;
        let tf = tfs[j];
        if (tf === TF_ESCAPE) tf = this.#tf(j);
        scores[p] = before + weight * tf / (tf + norm[p]);
      }
      return;
    }
    for (let c = 0; c < count && j < end; c++) {
      const p = touched[c];
      if (postings[j] < p) j = gallop(postings, j, end, p);
      if (j < end && postings[j] === p) {
        let tf = tfs[j];
        if (tf === TF_ESCAPE) tf = this.#tf(j);
        scores[p] = scores[p] + weight * tf / (tf + norm[p]);
        j++;
      }
    }
  }

  /** The term count of posting `j`. */
  #tf(j: number): number {
    const tf = this.#tfs[j];
    return tf === TF_ESCAPE ? this.#bigTfs.get(j)! : tf;
  }

  /** Sizes of the index. */
  get stats(): Bm25Stats {
    const arrays = [this.#offsets, this.#postings, this.#tfs, this.#idf, this.#norm, this.#peak];
    let bytes = this.#scores.byteLength + this.#touched.byteLength + this.#terms.bytes +
      this.#bigTfs.size * 16;
    for (const a of arrays) bytes += a.byteLength;
    return {
      passages: this.passages.length,
      terms: this.#terms.size,
      postings: this.#postings.length,
      bytes,
    };
  }
}

/** First index in `a[from..end)` whose value is >= `value` (`a[from]` < `value`), or `end`. */
function gallop(a: Uint32Array, from: number, end: number, value: number): number {
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

/** The `k`-th highest of the scores of `touched[0..count)` (count >= k). */
function kthScore(scores: Float64Array, touched: Uint32Array, count: number, k: number): number {
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
function topK(
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

/** The inverted index in CSR form plus passage lengths. */
interface BuiltPostings {
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
const TF_ESCAPE = 0xff;

function buildPostings(
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
