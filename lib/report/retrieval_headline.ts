/**
 * The retrieval metrics a report leads with, from the run's cut-offs
 * (`evaluation.retrieval_k`): nDCG at 10, the IR convention (at the cut-off
 * nearest 10 when 10 is not one), which also ranks systems that give no
 * answer, and recall at the deepest cut-off.
 *
 * @module
 */

import { DEFAULT_RETRIEVAL_K } from "../score/retrieval.ts";

/**
 * The headline retrieval metrics: `rank`, nDCG at the cut-off nearest 10;
 * `columns` adds recall at the deepest cut-off.
 */
export function retrievalHeadline(
  retrievalK: readonly number[] = DEFAULT_RETRIEVAL_K,
): { rank: string; columns: string[] } {
  const ks = retrievalK.length ? retrievalK : DEFAULT_RETRIEVAL_K;
  const near = [...ks].sort((x, y) => Math.abs(x - 10) - Math.abs(y - 10) || y - x)[0];
  const rank = `ndcg@${near}`;
  return { rank, columns: [...new Set([rank, `recall@${Math.max(...ks)}`])] };
}
