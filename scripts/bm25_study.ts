/**
 * A plain BM25 over whole documents for parameter studies
 * (`scripts/eval_beir.ts --length-study`): the same analysis, idf, term order
 * and arithmetic as `lib/lexical/bm25.ts` (so with `k1` and the linear `b`
 * normaliser it ranks exactly as ragbench's `Bm25Index` does: the study
 * checks that on every collection before it prints anything), but with the
 * document-length normaliser given as an array (any rule, not only
 * `1 - b + b * dl / avgdl`), `k1` chosen per query, and another analysis
 * (the Lucene emulation of `lucene_replica.ts`) if asked.
 *
 * No pruning, one pass over every posting of every query term: fine for
 * collections of thousands of documents, not for the library.
 *
 * @module
 */

import { DEFAULT_ANALYSIS, tokenize } from "../lib/lexical/tokenizer.ts";
import type { Document } from "../lib/types.ts";

/** The documents of a collection, analysed once: postings per term, lengths, statistics. */
export class StudyIndex {
  /** Documents, in corpus order (the order that breaks equal scores, as in `Bm25Index`). */
  readonly documents: readonly Document[];
  /** Indexed terms per document (stopwords excluded). */
  readonly lengths: Float64Array;
  /** Distinct indexed terms per document. */
  readonly distinct: Float64Array;
  /** Mean of {@link lengths} (1 when every document is empty), as `Bm25Index` computes it. */
  readonly avgdl: number;
  readonly #postings = new Map<string, { docs: Int32Array; tfs: Float64Array }>();

  /** How documents and queries become terms. */
  readonly analyze: (text: string) => string[];

  /**
   * Analyses `documents` as whole-document units (title, unless empty or the id, then text),
   * with ragbench's default analysis unless `analyze` is given.
   */
  constructor(
    documents: readonly Document[],
    analyze: (text: string) => string[] = (text) => tokenize(text, DEFAULT_ANALYSIS),
  ) {
    this.documents = documents;
    this.analyze = analyze;
    const n = documents.length;
    this.lengths = new Float64Array(n);
    this.distinct = new Float64Array(n);
    const lists = new Map<string, { docs: number[]; tfs: number[] }>();
    let total = 0;
    documents.forEach((doc, d) => {
      const title = doc.title !== "" && doc.title !== doc.id ? analyze(doc.title) : [];
      const terms = [...title, ...analyze(doc.text)];
      const counts = new Map<string, number>();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let list = lists.get(term);
        if (list === undefined) lists.set(term, list = { docs: [], tfs: [] });
        list.docs.push(d);
        list.tfs.push(tf);
      }
      this.lengths[d] = terms.length;
      this.distinct[d] = counts.size;
      total += terms.length;
    });
    for (const [term, list] of lists) {
      this.#postings.set(term, {
        docs: Int32Array.from(list.docs),
        tfs: Float64Array.from(list.tfs),
      });
    }
    this.avgdl = n > 0 && total > 0 ? total / n : 1;
  }

  /** BM25's linear normaliser `1 - b + b * dl / avgdl` of every document. */
  linear(b: number): Float64Array {
    return this.lengths.map((dl) => 1 - b + b * dl / this.avgdl);
  }

  /**
   * The `depth` best documents for `query` (ids and scores, best first, equal
   * scores in corpus order): `sum of qtf * idf * (k1 + 1) * tf / (tf + k1 *
   * norm[d])`, terms added rarest first, then alphabetically, as `Bm25Index`
   * adds them; `qtf` is 1 (`repeats: "once"`, ragbench's default) or the
   * times the query holds the term (`"count"`).
   */
  search(
    query: string,
    k1: number | ((distinctTerms: number) => number),
    norm: Float64Array,
    depth: number,
    repeats: "once" | "count" = "once",
  ): Array<{ doc_id: string; score: number }> {
    const qtf = new Map<string, number>();
    for (const term of this.analyze(query)) {
      qtf.set(term, repeats === "once" ? 1 : (qtf.get(term) ?? 0) + 1);
    }
    const k = typeof k1 === "number" ? k1 : k1(qtf.size);
    const terms = [...qtf].flatMap(([term, count]) => {
      const p = this.#postings.get(term);
      return p === undefined ? [] : [{ term, count, ...p }];
    });
    terms.sort((x, y) =>
      x.docs.length - y.docs.length || (x.term < y.term ? -1 : x.term > y.term ? 1 : 0)
    );
    const n = this.documents.length;
    const scores = new Float64Array(n);
    const touched: number[] = [];
    for (const { docs, tfs, count } of terms) {
      const df = docs.length;
      const weight = count * Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (k + 1);
      for (let j = 0; j < df; j++) {
        const d = docs[j];
        const tf = tfs[j];
        if (scores[d] === 0) touched.push(d);
        scores[d] = scores[d] + weight * tf / (tf + k * norm[d]);
      }
    }
    touched.sort((a, b) => scores[b] - scores[a] || a - b);
    return touched.slice(0, depth).map((d) => ({
      doc_id: this.documents[d].id,
      score: scores[d],
    }));
  }
}
