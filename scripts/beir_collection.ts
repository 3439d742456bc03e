/**
 * What `scripts/eval_beir.ts` and its length study share: a BEIR folder's
 * judged queries and documents, and the metrics of a document ranking over
 * them as trec_eval computes them (`-c`, 1,000 documents a query).
 *
 * @module
 */

import { loadBeirCorpus, loadBeirQuestions } from "../lib/data/beir.ts";
import type { Question } from "../lib/data/question_schema.ts";
import { questionMetrics, trecOrder } from "../lib/score/ir_metrics.ts";
import type { Document, RankedDoc } from "../lib/types.ts";

/** Documents a query keeps, as trec_eval's default evaluation depth. */
export const DEPTH = 1000;

/** The columns printed, with their keys in {@link questionMetrics}'s records. */
export const COLUMNS = [
  { label: "nDCG@10", key: "ndcg@10" },
  { label: "MAP", key: "map" },
  { label: "R@100", key: "recall@100" },
  { label: "MRR@10", key: "mrr@10" },
] as const;

/** One evaluated ranking: per-query metric values, in the order of the judged queries. */
export interface Evaluated {
  label: string;
  perQuery: Array<Record<string, number>>;
  /** Means of {@link COLUMNS}, in order. */
  means: number[];
}

/** A collection's judged queries and documents. */
export interface Collection {
  folder: string;
  documents: readonly Document[];
  /** Documents with no title and no text. */
  empty: number;
  /** The queries with at least one relevant document. */
  judged: Question[];
}

/** Reads a BEIR folder's corpus and the judged queries of `split`. */
export async function loadCollection(folder: string, split: string): Promise<Collection> {
  const corpus = await loadBeirCorpus(folder);
  const ids = new Set(corpus.documents.map((d) => d.id));
  const { questions } = await loadBeirQuestions(folder, split, { documentIds: ids });
  return {
    folder,
    documents: corpus.documents,
    empty: corpus.empty,
    judged: questions.filter((q) => (q.evidence ?? []).length > 0),
  };
}

/** The metrics of `rankings` on the judged queries (cut to {@link DEPTH}, in trec_eval order). */
export function evaluate(
  collection: Collection,
  label: string,
  rankings: Map<string, RankedDoc[]>,
): Evaluated {
  const perQuery = collection.judged.map((q) => {
    const docs = trecOrder(rankings.get(q.id) ?? []).slice(0, DEPTH).map((d) => d.doc_id);
    return questionMetrics(docs, new Map(q.evidence!.map((e) => [e.id, e.grade])), [10, 100]);
  });
  const means = COLUMNS.map((c) =>
    perQuery.reduce((sum, m) => sum + m[c.key], 0) / perQuery.length
  );
  return { label, perQuery, means };
}
