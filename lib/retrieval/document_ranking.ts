/**
 * Passage rankings scored back to documents, for document-level metrics
 * (qrels judge documents, retrievers rank passages).
 *
 * @module
 */

/** A ranked passage as a retrieval step records it. */
export interface RankedPassage {
  passage_id: string;
  doc_id: string;
  score: number;
}

/**
 * The documents of a passage ranking, best first: each document once, at the
 * rank of its best (first) passage, with that passage's id and score. The
 * input must be best first, as every retriever returns it; ties keep the
 * retriever's order.
 */
export function documentRanking(results: readonly RankedPassage[]): RankedPassage[] {
  const seen = new Set<string>();
  const out: RankedPassage[] = [];
  for (const r of results) {
    if (seen.has(r.doc_id)) continue;
    seen.add(r.doc_id);
    out.push({ passage_id: r.passage_id, doc_id: r.doc_id, score: r.score });
  }
  return out;
}
