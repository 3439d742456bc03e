/**
 * Retrieval scores from the passages a system's tool calls surfaced. Each
 * successful call of `search`, `corpus_grep` or `read_document` is one
 * ranking of document ids (from its `data.results[].doc_id`, in order); the
 * rankings are merged with Reciprocal Rank Fusion (k = 60), and the merged
 * ranking is scored against the question's `evidence`:
 * - recall: the share of evidence documents that appear anywhere in it;
 * - mrr: 1 / the position of the first evidence document in it (0 if none).
 * Both are null for a question without evidence.
 *
 * @module
 */

import type { JsonValue, RetrievalScores, Step, ToolStep } from "../types.ts";

/** The tools whose results count as retrieval. */
export const RETRIEVAL_TOOLS: ReadonlySet<string> = new Set([
  "search",
  "corpus_grep",
  "read_document",
]);

/** Reciprocal Rank Fusion constant. */
export const RRF_K = 60;

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
  for (const item of list) {
    if (item && typeof item === "object" && !Array.isArray(item)) {
      const id = item.doc_id;
      if (typeof id === "string" && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

/** Merges rankings with Reciprocal Rank Fusion; ties keep first-seen order. */
export function fuseRankings(rankings: readonly string[][]): string[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + i + 1)));
  }
  const order = [...scores.keys()];
  return order
    .map((id, seen) => ({ id, seen, score: scores.get(id)! }))
    .sort((a, b) => b.score - a.score || a.seen - b.seen)
    .map((e) => e.id);
}

/** Retrieval scores of a trace's steps against `evidence`. */
export function retrievalScores(
  steps: readonly Step[],
  evidence: readonly string[] | undefined,
): RetrievalScores {
  const rankings = steps
    .filter((s): s is ToolStep =>
      s.type === "tool" && RETRIEVAL_TOOLS.has(s.tool) && s.result.error === null
    )
    .map((s) => docIdsOf(s.result.data))
    .filter((r) => r.length > 0);
  const ranking = fuseRankings(rankings);
  if (!evidence || evidence.length === 0) return { recall: null, mrr: null, ranking };
  const found = evidence.filter((id) => ranking.includes(id)).length;
  const first = ranking.findIndex((id) => evidence.includes(id));
  return {
    recall: found / evidence.length,
    mrr: first === -1 ? 0 : 1 / (first + 1),
    ranking,
  };
}
