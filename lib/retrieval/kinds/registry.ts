/**
 * Every retriever kind. Adding one is one file in this folder
 * (`defineRetrieverKind`, every facet of `kind.ts`) and one entry in
 * {@link RETRIEVER_KIND_LIST}; the config's schema, the run's builds, the
 * permissions, the prices and the run folder's copy of the config follow
 * from it. The first kind is the default `kind:`.
 *
 * @module
 */

import { bm25Kind } from "./bm25.ts";
import { hybridKind } from "./hybrid.ts";
import { httpKind } from "./http.ts";
import type { RetrieverBase, RetrieverKind } from "./kind.ts";
import { postgresKind } from "./postgres.ts";
import { rerankKindOver } from "./rerank.ts";
import { elasticsearchKind, opensearchKind } from "./search_engines.ts";
import { vectorKind } from "./vector.ts";

/** The kinds, in the order the config lists them; the first is the default. */
export const RETRIEVER_KIND_LIST = [
  bm25Kind,
  vectorKind,
  hybridKind,
  // A reranker's base may be of any kind, this one included: it looks them up here.
  rerankKindOver((config) => kindOf(config)),
  httpKind,
  postgresKind,
  opensearchKind,
  elasticsearchKind,
] as const;

/** Retriever kinds by `kind:`. */
export const RETRIEVER_KINDS: ReadonlyMap<string, RetrieverKind> = new Map<string, RetrieverKind>(
  RETRIEVER_KIND_LIST.map((k) => [k.kind, k as unknown as RetrieverKind]),
);

/**
 * The kind of `config`.
 *
 * @throws {TypeError} when it is not registered (a bug: the config's schema lists only kinds here).
 */
export function kindOf(
  config: Pick<RetrieverBase, "kind">,
  kinds: ReadonlyMap<string, RetrieverKind> = RETRIEVER_KINDS,
): RetrieverKind {
  const kind = kinds.get(config.kind);
  if (kind === undefined) {
    throw new TypeError(`retriever kind "${config.kind}" passed validation but is not registered`);
  }
  return kind;
}
