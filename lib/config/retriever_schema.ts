/**
 * The `retrievers:` section of a config and a system's inline `retriever:`:
 * strict zod schemas composed from the retriever kinds (`lib/retrieval/kinds/`),
 * one a kind (a union on `kind`, the first kind by default), each with the
 * keys every kind has (`top_k`, `chunk`). The kinds ragbench computes itself
 * (bm25, vector, hybrid: no keys of their own) take every such kind's
 * sections with their defaults (`bm25`, `embedding`, `fusion`); the keys a
 * kind does not use are accepted and ignored (so switching between them is
 * a one-word change). A kind with keys of its own (an engine or a service:
 * rerank, http, postgres, opensearch, elasticsearch) takes its sections and
 * its keys, and refuses any other (a key meant for another kind is a
 * mistake, never silently ignored). The sections are declared beside the
 * code that reads them (`lib/lexical`, `lib/dense`), and re-exported here;
 * an engine's keys beside its client (`lib/retrieval/remote/engine_keys.ts`).
 *
 * @module
 */

import { z } from "zod";
import {
  commonRetrieverFields,
  type RetrieverBase,
  type RetrieverKind,
} from "../retrieval/kinds/kind.ts";
import { RETRIEVER_KIND_LIST } from "../retrieval/kinds/registry.ts";

export { type Bm25Config, bm25Schema } from "../lexical/bm25_config.ts";
export { type ChunkConfig, chunkSchema } from "../lexical/chunk_config.ts";
export { type EmbeddingConfig, embeddingSchema } from "../dense/embedding_config.ts";
export { type FusionConfig, fusionSchema } from "../dense/fusion_config.ts";
export { DEFAULT_TOP_K } from "../retrieval/kinds/kind.ts";

type Kinds = typeof RETRIEVER_KIND_LIST;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends
  (i: infer I) => void ? I : never;
/** A kind with no keys of its own (it shares every such kind's sections). */
type Shares<K> = K extends RetrieverKind<infer _S, infer _R, infer O>
  ? keyof O extends never ? K : never
  : never;
/** The sections of the kinds without keys of their own, merged. */
type SharedSections = UnionToIntersection<
  Shares<Kinds[number]> extends infer K ? K extends RetrieverKind<infer S> ? S : never : never
>;
/** One kind's entry after defaults. */
type EntryOf<K> = K extends RetrieverKind<infer S, infer _R, infer O> & { readonly kind: infer N }
  ? keyof O extends never
    ? { kind: N } & Omit<RetrieverBase, "kind"> & z.output<z.ZodObject<SharedSections>>
  : { kind: N } & Omit<RetrieverBase, "kind"> & z.output<z.ZodObject<S>> & z.output<z.ZodObject<O>>
  : never;

/**
 * The sections of the kinds without keys of their own, once each, in kind order.
 *
 * @throws {TypeError} when two kinds name one section with different schemas, or a kind's own
 *   key is named like a section or a common key.
 */
function sharedSectionsOf(kinds: readonly RetrieverKind[]): z.ZodRawShape {
  const sections: Record<string, z.core.$ZodType> = {};
  for (const kind of kinds) {
    if (Object.keys(kind.keys).length > 0) continue;
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
  for (const kind of kinds) {
    for (const key of Object.keys(kind.keys)) {
      if (Object.hasOwn(sections, key) || Object.hasOwn(commonRetrieverFields, key)) {
        throw new TypeError(
          `retriever kind "${kind.kind}" has a key "${key}" named like a section`,
        );
      }
    }
  }
  return sections;
}

/** One strict object a kind (see the module comment); the first kind is the default. */
function entrySchemas(kinds: readonly RetrieverKind[]) {
  const shared = sharedSectionsOf(kinds);
  return kinds.map((kind, i) => {
    const own = Object.keys(kind.keys).length > 0;
    return z.strictObject({
      kind: i === 0 ? z.literal(kind.kind).default(kind.kind) : z.literal(kind.kind),
      ...commonRetrieverFields,
      ...(own ? kind.sections : shared),
      ...kind.keys,
    });
  });
}

const entries = entrySchemas(RETRIEVER_KIND_LIST as unknown as RetrieverKind[]);

/** A retriever after defaults: one of the kinds' entries. */
export type RetrieverConfig = EntryOf<Kinds[number]>;
/** A retriever of one kind, after defaults. */
export type RetrieverOf<K extends RetrieverConfig["kind"]> = Extract<RetrieverConfig, { kind: K }>;

/** One retriever. */
export const retrieverSchema = z.discriminatedUnion(
  "kind",
  entries as unknown as [(typeof entries)[number], ...(typeof entries)[number][]],
) as unknown as z.ZodType<RetrieverConfig, unknown>;

/** A retriever of a kind ragbench computes itself (bm25, vector, hybrid), after defaults. */
export type OwnRetrieverConfig = RetrieverOf<"bm25" | "vector" | "hybrid">;

/**
 * `config` as one of the kinds without keys of their own (which share every
 * such kind's sections).
 *
 * @throws {TypeError} for a kind with keys of its own (a caller's mistake: it chose the kind).
 */
export function ownRetriever(config: RetrieverConfig): OwnRetrieverConfig {
  const kind = RETRIEVER_KIND_LIST.find((k) => k.kind === config.kind);
  if (kind !== undefined && Object.keys(kind.keys).length === 0) {
    return config as OwnRetrieverConfig;
  }
  throw new TypeError(`retriever kind "${config.kind}" has keys of its own`);
}

/** `value` parsed as a retriever of a kind ragbench computes itself (tests, scripts). */
export function parseOwnRetriever(value: unknown): OwnRetrieverConfig {
  return ownRetriever(retrieverSchema.parse(value));
}
