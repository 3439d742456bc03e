/**
 * A reranker's `base:` resolved into the retriever it names: the
 * `retrievers:` entry of that name, `bm25`, `vector` or `hybrid` with every
 * default when no entry has that name, or a retriever written inline
 * (checked against the retriever schema where it stands). A base may be a
 * reranker itself; a chain that leads back to where it started is refused,
 * naming the chain. After this pass every `base` of a loaded config is a
 * retriever's settings, so the rest of ragbench never sees a name. Which
 * kinds have a base is their registry's `wraps` facet (`kinds/kind.ts`).
 *
 * @module
 */

import type { ConfigIssue } from "../errors.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { restoreProtoKey } from "../util/proto_keys.ts";
import { issuesFromZod, type YamlSource } from "../util/yaml_source.ts";
import type { RetrieverKind } from "../retrieval/kinds/kind.ts";
import { RETRIEVER_KINDS } from "../retrieval/kinds/registry.ts";
import { type RetrieverConfig, retrieverSchema } from "./retriever_schema.ts";

/** Kinds a base may name when no `retrievers:` entry has that name (with their defaults). */
const KIND_NAMES = ["bm25", "vector", "hybrid"];

/** What resolution needs from the loader. */
export interface BaseContext {
  source: YamlSource;
  problems: ConfigIssue[];
  /** `retrievers:` by name (the entries as parsed). */
  named: ReadonlyMap<string, RetrieverConfig>;
  /** Named entries already resolved (null: one whose resolution failed). */
  resolved: Map<string, RetrieverConfig | null>;
  /** The retriever kinds by `kind:`: those whose `wraps` holds have a `base` to resolve. */
  kinds: ReadonlyMap<string, Pick<RetrieverKind, "wraps">>;
}

/**
 * A context over `raw.retrievers` (each entry resolved once, on first use);
 * `kinds` defaults to the registry's.
 */
export function baseContext(
  raw: { retrievers: Record<string, RetrieverConfig> },
  source: YamlSource,
  problems: ConfigIssue[],
  kinds: ReadonlyMap<string, Pick<RetrieverKind, "wraps">> = RETRIEVER_KINDS,
): BaseContext {
  const named = new Map(
    Object.entries(raw.retrievers).map(([k, v]) => [restoreProtoKey(k), v] as const),
  );
  return { source, problems, named, resolved: new Map(), kinds };
}

/** Resolves every `retrievers:` entry, reporting each problem (also of entries no system uses). */
export function resolveNamedRetrievers(context: BaseContext): void {
  for (const name of context.named.keys()) resolveNamed(name, [], context);
}

/** The named entry `name`, its bases resolved; null when that failed (a problem was added). */
export function resolveNamed(
  name: string,
  chain: readonly string[],
  context: BaseContext,
): RetrieverConfig | null {
  const done = context.resolved.get(name);
  if (done !== undefined) return done;
  const config = context.named.get(name);
  if (config === undefined) return null;
  const resolved = resolveBase(config, ["retrievers", name], [...chain, name], context);
  context.resolved.set(name, resolved);
  return resolved;
}

/**
 * `config` with its `base` (and its base's, ...) resolved; null when one
 * cannot be (a problem naming the place was added).
 */
export function resolveBase(
  config: RetrieverConfig,
  at: Array<string | number>,
  chain: readonly string[],
  context: BaseContext,
): RetrieverConfig | null {
  if (context.kinds.get(config.kind)?.wraps !== true) return config;
  const { source, problems } = context;
  const given = (config as { base?: unknown }).base;
  const where = [...at, "base"];
  if (typeof given === "string") {
    if (chain.includes(given)) {
      problems.push({
        position: source.positionOf(where),
        message: `the reranker's base leads back to itself (${[...chain, given].join(" -> ")})`,
        hint: "give the chain a first stage that is not a reranker (bm25, say)",
      });
      return null;
    }
    if (context.named.has(given)) {
      const base = resolveNamed(given, chain, context);
      return base === null ? null : withBase(config, base);
    }
    if (KIND_NAMES.includes(given)) {
      const base = retrieverSchema.parse({ kind: given });
      return withBase(config, base);
    }
    problems.push({
      position: source.positionOf(where),
      message: `unknown retriever "${given}" as the reranker's base`,
      hint: suggestion(given, [...context.named.keys(), ...KIND_NAMES]) ??
        `name an entry of retrievers:, or one of ${KIND_NAMES.join(", ")}`,
    });
    return null;
  }
  const parsed = retrieverSchema.safeParse(given);
  if (!parsed.success) {
    problems.push(...issuesFromZod(source, parsed.error, retrieverSchema, where, given));
    return null;
  }
  const base = resolveBase(parsed.data, where, chain, context);
  return base === null ? null : withBase(config, base);
}

/** The reranker `config` over `base` (a retriever's settings where its name stood). */
function withBase(config: RetrieverConfig, base: RetrieverConfig): RetrieverConfig {
  return { ...config, base: base as unknown as Record<string, unknown> } as RetrieverConfig;
}
