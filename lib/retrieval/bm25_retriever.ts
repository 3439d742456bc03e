/**
 * The `kind: bm25` retriever: an Okapi BM25 index (`bm25.ts`) over the
 * passages that the retriever's `chunk:` settings cut, with its `bm25:`
 * settings (`k1`, `b`, stemmer, stopwords, abbreviations, single letters,
 * query repeats).
 *
 * With `document_ranking: whole` (the default) it also ranks whole documents
 * ({@link Retriever.searchDocuments}, what `retrieval_only` asks for): BM25
 * over one unit per document, its title and whole text, with the
 * collection statistics of documents (N documents, their mean length, df
 * counted in documents). Ranking documents by their best passage instead
 * loses on long documents: a document whose relevant words are spread over
 * two passages scores as the better half. That index is built on the first
 * {@link Retriever.prepareDocuments} or `searchDocuments` call, not with the
 * passage index, so runs that only search passages never pay for it; when
 * every document is one passage the passage index already is the document
 * index (same units, same statistics) and is used as such.
 *
 * @module
 */

import type { Bm25Config } from "../lexical/bm25_config.ts";
import type { Document } from "../types.ts";
import { Bm25Index, type Bm25Options } from "../lexical/bm25.ts";
import type { Passage } from "../lexical/passages.ts";
import type { Analysis } from "../lexical/tokenizer.ts";
import type { RetrievalOutcome, Retriever } from "./types.ts";

/** What a BM25 retriever is built from. */
export interface Bm25RetrieverSpec {
  name: string;
  /** Passages returned when the caller does not ask for a number. */
  topK: number;
  bm25: Readonly<Bm25Config>;
  passages: readonly Passage[];
  /**
   * The documents the passages were cut from, in corpus order: needed for
   * whole-document ranking (without them the retriever ranks passages only).
   */
  documents?: readonly Document[];
}

/** The tokenizer settings of a `bm25:` section. */
export function analysisOf(bm25: Readonly<Bm25Config>): Analysis {
  return {
    stemmer: bm25.stemmer,
    stopwords: bm25.stopwords,
    abbreviations: bm25.abbreviations,
    singleLetters: bm25.single_letters,
  };
}

/** The `Bm25Index` options of a `bm25:` section. */
export function bm25OptionsOf(bm25: Readonly<Bm25Config>): Bm25Options {
  return { k1: bm25.k1, b: bm25.b, analysis: analysisOf(bm25), queryRepeats: bm25.query_repeats };
}

/**
 * The unit whole-document ranking scores for `doc`: the whole document as
 * one passage, whose id is the document id.
 */
export function wholeDocument(doc: Document): Passage {
  return { id: doc.id, doc_id: doc.id, index: 0, title: doc.title, text: doc.text };
}

/** Builds the index at once (synchronously: bounded by the corpus size) and wraps it. */
export function createBm25Retriever(spec: Bm25RetrieverSpec): Retriever & {
  readonly index: Bm25Index;
} {
  const options = bm25OptionsOf(spec.bm25);
  const index = new Bm25Index(spec.passages, options);
  const retriever: Retriever & { readonly index: Bm25Index } = {
    name: spec.name,
    kind: "bm25",
    topK: spec.topK,
    passages: spec.passages,
    index,
    // deno-lint-ignore require-await
    async search(query: string, k: number, signal: AbortSignal): Promise<RetrievalOutcome> {
      signal.throwIfAborted();
      return { hits: index.search(query, k), embedding_tokens: 0, cost_usd: 0 };
    },
    queryTerms(query: string): readonly string[] {
      return index.queryTerms(query);
    },
  };
  const documents = spec.documents;
  if (documents === undefined || spec.bm25.document_ranking !== "whole") return retriever;

  let built: DocumentIndex | null = null;
  const documentIndex = (): DocumentIndex =>
    built ??= buildDocumentIndex(documents, index, options);
  retriever.prepareDocuments = () => void documentIndex();
  // deno-lint-ignore require-await
  retriever.searchDocuments = async (query, k, signal): Promise<RetrievalOutcome> => {
    signal.throwIfAborted();
    const { index: ranked, units } = documentIndex();
    const hits = ranked.search(query, k).map((hit) => ({
      passage: units?.get(hit.passage.doc_id) ?? hit.passage,
      score: hit.score,
    }));
    return { hits, embedding_tokens: 0, cost_usd: 0 };
  };
  return retriever;
}

/** A whole-document index, and when it is the passage index, the document unit of each hit. */
interface DocumentIndex {
  index: Bm25Index;
  /** Document id -> whole-document unit; null when the index holds the units themselves. */
  units: Map<string, Passage> | null;
}

function buildDocumentIndex(
  documents: readonly Document[],
  passageIndex: Bm25Index,
  options: Bm25Options,
): DocumentIndex {
  // Each document gives at least one passage, so as many passages as documents means one each,
  // in the same order: the same units, hence the same N, df, lengths and scores.
  if (passageIndex.passages.length === documents.length) {
    return { index: passageIndex, units: new Map(documents.map((d) => [d.id, wholeDocument(d)])) };
  }
  return { index: new Bm25Index(documents.map(wholeDocument), options), units: null };
}
