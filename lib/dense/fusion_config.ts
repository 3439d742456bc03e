/**
 * The `fusion:` section of a retriever: how a hybrid merges its BM25 and
 * vector rankings by Reciprocal Rank Fusion (`fusion.ts`; read by the
 * `hybrid` kind, `lib/retrieval/kinds/hybrid.ts`).
 *
 * @module
 */

import { z } from "zod";

/** How a hybrid retriever merges its BM25 and vector rankings. */
export const fusionSchema = z.strictObject({
  method: z.enum(["rrf"]).default("rrf"),
  /** Reciprocal Rank Fusion constant: score = sum of weight / (k + rank). */
  k: z.number().positive().max(10_000).default(60),
  /** Weight of each ranking (default 1 each). */
  weights: z.strictObject({
    bm25: z.number().nonnegative().default(1),
    vector: z.number().nonnegative().default(1),
  }).prefault({}),
});

/** `fusion:` after defaults. */
export type FusionConfig = z.output<typeof fusionSchema>;
