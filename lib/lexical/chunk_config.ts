/**
 * The `chunk:` section of a retriever: how documents are cut into passages
 * (`chunking.ts`). Every retriever kind has it; the config composes it
 * (`lib/retrieval/kinds/kind.ts`).
 *
 * @module
 */

import { z } from "zod";

/** How documents are cut into passages. */
export const chunkSchema = z.strictObject({
  /** Longest passage, in `unit`s. */
  size: z.int().min(16).max(8192).default(200),
  /** Units shared by consecutive passages of a document (0: none). */
  overlap: z.int().min(0).max(4096).default(0),
  /** `words` (runs of non-space characters) or `tokens` (estimated as 4 characters each). */
  unit: z.enum(["words", "tokens"]).default("words"),
}).refine((c) => c.overlap < c.size, { message: "overlap must be smaller than size" });

/** `chunk:` after defaults. */
export type ChunkConfig = z.output<typeof chunkSchema>;
