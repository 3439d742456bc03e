/**
 * The document ranking a trace is scored on, and its retrieval scores.
 *
 * A trace's retrievals are its retrieval steps (the `rag` and
 * `retrieval_only` systems) and its successful calls of `search`,
 * `corpus_grep` and `read_document` (each one ranking of document ids, from
 * `data.results[].doc_id`, in order). A retrieval step's passages are
 * reduced to documents: each document once, scored by its best passage.
 *
 * - One retrieval step and nothing else: the ranking is that step's
 *   documents with their scores.
 * - Otherwise (agents, or several retrievals): the rankings are merged with
 *   Reciprocal Rank Fusion, score(d) = Σ 1 / (60 + rank of d), over the
 *   rankings that hold d.
 *
 * Either way the documents are then ordered as trec_eval orders a run:
 * score descending, ties broken by document id descending as strings
 * ({@link trecOrder}), so a TREC run file with these scores is evaluated in
 * exactly this order. The metrics of `ir_metrics.ts` are computed on it
 * against the question's graded evidence; they are null for a question
 * without evidence.
 *
 * @module
 */

import type { Evidence } from "../data/question_schema.ts";
import type { JsonValue, RankedDoc, RetrievalScores, RetrievalStep, Step } from "../types.ts";
import { questionMetrics, reciprocalRank, trecOrder } from "./ir_metrics.ts";

/** The tools whose results count as retrieval. */
export const RETRIEVAL_TOOLS: ReadonlySet<string> = new Set([
  "search",
  "corpus_grep",
  "read_document",
]);

/** Reciprocal Rank Fusion constant. */
export const RRF_K = 60;

/** Default cut-offs of the retrieval metrics (`evaluation.retrieval_k`). */
export const DEFAULT_RETRIEVAL_K: readonly number[] = [1, 5, 10, 100];

/**
 * Document ids a tool result surfaced, in order, without repeats: from
 * `data.results[].doc_id` or a top-level list of `{doc_id}` objects.
 */
export function docIdsOf(data: JsonValue | undefined): string[] {
  const list = Array.isArray(data)
    ? data
    : data && typeof data === "object" && Array.isArray(data.results)
    ? data.results
    : [];
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    if (item && typeof item === "object" && !Array.isArray(item)) {
      const id = item.doc_id;
      if (typeof id === "string" && !seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
  }
  return ids;
}

/** A retrieval step's documents, each scored by its best passage, in trec_eval order. */
export function stepDocuments(step: RetrievalStep): RankedDoc[] {
  const best = new Map<string, number>();
  for (const { doc_id, score } of step.results) {
    const previous = best.get(doc_id);
    if (previous === undefined || score > previous) best.set(doc_id, score);
  }
  return trecOrder([...best].map(([doc_id, score]) => ({ doc_id, score })));
}

/** Merges rankings with Reciprocal Rank Fusion (k = {@link RRF_K}), in trec_eval order. */
export function fuseRankings(rankings: readonly (readonly string[])[]): RankedDoc[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
  }
  return trecOrder([...scores].map(([doc_id, score]) => ({ doc_id, score })));
}

/** The ranking a trace is scored on (see the module documentation). */
export function documentRanking(steps: readonly Step[]): { retrieved: boolean; docs: RankedDoc[] } {
  let retrieved = false;
  const sources: Array<{ step: boolean; docs: RankedDoc[] | null; ids: string[] }> = [];
  for (const step of steps) {
    if (step.type === "retrieval") {
      retrieved = true;
      if (step.error !== null) continue;
      const docs = stepDocuments(step);
      if (docs.length) sources.push({ step: true, docs, ids: docs.map((d) => d.doc_id) });
    } else if (step.type === "tool" && RETRIEVAL_TOOLS.has(step.tool)) {
      retrieved = true;
      if (step.result.error !== null) continue;
      const ids = docIdsOf(step.result.data);
      if (ids.length) sources.push({ step: false, docs: null, ids });
    }
  }
  if (sources.length === 1 && sources[0].step) return { retrieved, docs: sources[0].docs! };
  return { retrieved, docs: fuseRankings(sources.map((s) => s.ids)) };
}

/**
 * Retrieval scores of a trace's steps against the question's evidence, with
 * the metrics at each cut-off of `cutoffs` (default {@link DEFAULT_RETRIEVAL_K}).
 */
export function retrievalScores(
  steps: readonly Step[],
  evidence: readonly Evidence[] | undefined,
  cutoffs: readonly number[] = DEFAULT_RETRIEVAL_K,
): RetrievalScores {
  const { retrieved, docs } = documentRanking(steps);
  const ranking = docs.map((d) => d.doc_id);
  const scores = docs.map((d) => d.score);
  const relevant = evidence?.length ?? 0;
  const depth = depthLimit(steps, docs.length);
  if (!evidence || relevant === 0) {
    return { retrieved, relevant, recall: null, mrr: null, metrics: null, ranking, scores, depth };
  }
  const judgements = new Map(evidence.map((e) => [e.id, e.grade]));
  const inRanking = new Set(ranking);
  return {
    retrieved,
    relevant,
    recall: evidence.filter((e) => inRanking.has(e.id)).length / relevant,
    mrr: reciprocalRank(ranking, judgements),
    metrics: questionMetrics(ranking, judgements, cutoffs),
    ranking,
    scores,
    depth,
  };
}

/**
 * The ranking's documents when a depth setting cut it (see
 * `RetrievalScores.depth`): only a ranking made of a system's own retrieval
 * steps, one of which returned all the passages it asked for.
 */
export function depthLimit(steps: readonly Step[], documents: number): number | null {
  let cut = false;
  for (const step of steps) {
    if (step.type === "tool" && RETRIEVAL_TOOLS.has(step.tool)) return null;
    if (
      step.type === "retrieval" && step.error === null && step.k !== undefined &&
      step.results.length >= step.k
    ) cut = true;
  }
  return cut ? documents : null;
}
