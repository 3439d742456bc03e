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

import { TermDictionary } from "./term_interner.ts";
import { type Analysis, DEFAULT_ANALYSIS, tokenize } from "./tokenizer.ts";
import type { Passage } from "./passages.ts";
import { buildPostings, gallop, TF_ESCAPE } from "./bm25_postings.ts";
import { type Bm25Image, checkImage } from "./bm25_image.ts";

export type { Bm25Image } from "./bm25_image.ts";
import { kthScore, topK } from "./bm25_top_k.ts";

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
   * With `saved` (an {@link image} of an index built from the same passages
   * and options) nothing is tokenised: the index takes those arrays as they
   * are, after checking that they fit together and `passages`.
   *
   * @throws {RangeError} when `k1` is negative or `b` is outside 0..1, or
   *   `saved` does not fit.
   */
  constructor(passages: readonly Passage[], options: Bm25Options = {}, saved?: Bm25Image) {
    const k1 = options.k1 ?? BM25_K1;
    const b = options.b ?? BM25_B;
    if (!(k1 >= 0 && Number.isFinite(k1))) throw new RangeError(`k1 must be >= 0, got ${k1}.`);
    if (!(b >= 0 && b <= 1)) throw new RangeError(`b must be between 0 and 1, got ${b}.`);
    this.passages = passages;
    this.k1 = k1;
    this.b = b;
    this.analysis = options.analysis ?? DEFAULT_ANALYSIS;
    this.queryRepeats = options.queryRepeats ?? BM25_QUERY_REPEATS;
    if (saved !== undefined) {
      checkImage(saved, passages.length);
      this.#terms = TermDictionary.fromImage(saved.dictionary, saved.idf.length);
      this.#offsets = saved.offsets;
      this.#postings = saved.postings;
      this.#tfs = saved.tfs;
      this.#bigTfs = new Map();
      for (let i = 0; i < saved.bigTfKeys.length; i++) {
        this.#bigTfs.set(saved.bigTfKeys[i], saved.bigTfValues[i]);
      }
      this.#idf = saved.idf;
      this.#norm = saved.norm;
      this.#peak = saved.peak;
      this.#scores = new Float64Array(passages.length);
      this.#touched = new Uint32Array(passages.length);
      return;
    }
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

  /**
   * The index's arrays as they are (not copies), for saving it: passing them
   * back to the constructor with the same passages and options gives an
   * index that returns the same hits with the same scores, bit for bit,
   * without tokenising anything.
   */
  image(): Bm25Image {
    const keys = new Uint32Array(this.#bigTfs.size);
    const values = new Uint32Array(this.#bigTfs.size);
    let i = 0;
    for (const [key, value] of this.#bigTfs) {
      keys[i] = key;
      values[i++] = value;
    }
    return {
      dictionary: this.#terms.image(),
      offsets: this.#offsets,
      postings: this.#postings,
      tfs: this.#tfs,
      bigTfKeys: keys,
      bigTfValues: values,
      idf: this.#idf,
      norm: this.#norm,
      peak: this.#peak,
    };
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
