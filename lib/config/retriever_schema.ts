/**
 * The `retrievers:` section of a config and a system's inline `retriever:`:
 * one strict zod schema, composed from the retriever kinds
 * (`lib/retrieval/kinds/`): `kind` (one of the registered kinds, the first
 * by default), the keys every kind has (`top_k`, `chunk`) and every kind's
 * sections with their defaults (`bm25`, `embedding`, `fusion`). The keys a
 * kind does not use are accepted and ignored (so switching `kind` is a
 * one-word change). The sections themselves are declared beside the code
 * that reads them (`lib/lexical`, `lib/dense`), and re-exported here.
 *
 * @module
 */

import { z } from "zod";
import { commonRetrieverFields, type RetrieverKind } from "../retrieval/kinds/kind.ts";
import { RETRIEVER_KIND_LIST } from "../retrieval/kinds/registry.ts";

export { type Bm25Config, bm25Schema } from "../lexical/bm25_config.ts";
export { type ChunkConfig, chunkSchema } from "../lexical/chunk_config.ts";
export { type EmbeddingConfig, embeddingSchema } from "../dense/embedding_config.ts";
export { type FusionConfig, fusionSchema } from "../dense/fusion_config.ts";
export { DEFAULT_TOP_K } from "../retrieval/kinds/kind.ts";

type Kinds = typeof RETRIEVER_KIND_LIST;
type KindName = Kinds[number]["kind"];
/** Every kind's sections, merged (a kind's sections type `S` of `RetrieverKind<S>`). */
type Sections = UnionToIntersection<
  Kinds[number] extends infer K ? K extends RetrieverKind<infer S> ? S : never : never
>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends
  (i: infer I) => void ? I : never;

/**
 * The sections of every kind, once each, in kind order.
 *
 * @throws {TypeError} when two kinds name one section with different schemas.
 */
function sectionsOf(kinds: readonly RetrieverKind[]): z.ZodRawShape {
  const sections: Record<string, z.core.$ZodType> = {};
  for (const kind of kinds) {
    for (const [key, schema] of Object.entries(kind.sections)) {
      const earlier = Object.hasOwn(sections, key) ? sections[key] : undefined;
      if (earlier !== undefined && earlier !== schema) {
        throw new TypeError(
          `retriever kind "${kind.kind}" declares the section "${key}" with another schema than an earlier kind`,
        );
      }
      sections[key] = schema;
    }
  }
  return sections;
}

const kindNames = RETRIEVER_KIND_LIST.map((k) => k.kind) as [KindName, ...KindName[]];

/** One retriever. */
export const retrieverSchema = z.strictObject({
  kind: z.enum(kindNames).default(kindNames[0]),
  ...commonRetrieverFields,
  ...sectionsOf(RETRIEVER_KIND_LIST as unknown as RetrieverKind[]) as Sections,
});

/** A retriever after defaults. */
export type RetrieverConfig = z.output<typeof retrieverSchema>;
