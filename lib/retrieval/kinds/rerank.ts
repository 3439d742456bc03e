/**
 * `kind: rerank`: a second stage over any retriever (its `base`, resolved
 * by the config's check into that retriever's settings), through the rerank
 * HTTP API (`lib/retrieval/rerank_retriever.ts`, loaded only by a run that
 * builds one). Its base is the run's build of the base's settings, shared
 * with any retriever of those settings, so the kind asks the base's kind for
 * what the base depends on, calls and needs: a build depends on its own keys
 * and the base's settings; its embeddings are the base's; it needs net for
 * the rerank service and env for `api_key_env` and each `${VAR}` (none of
 * them under `--mock`, where nothing is sent), and whatever its base needs.
 * It cuts no passages (its passages are the base's).
 *
 * The kind of a base is looked up through the registry, which lists this
 * kind too: the registry hands it its lookup ({@link rerankKindOver}), so
 * this file does not import the registry back.
 *
 * @module
 */

import type { Retriever } from "../types.ts";
import { rerankBase, rerankKeys } from "../remote/engine_keys.ts";
import { needWho, urlNeed, variableNeeds } from "../remote/engine_needs.ts";
import { maskHeaders, maskUrl } from "../remote/secret_mask.ts";
import { readEnv } from "../../util/secrets.ts";
import { defineRetrieverKind, ownValues, type RetrieverBase, type RetrieverKind } from "./kind.ts";

/** The rerank kind, whose bases' kinds `kindOf` finds. */
export function rerankKindOver(kindOf: (config: RetrieverBase) => RetrieverKind) {
  return defineRetrieverKind({
    kind: "rerank",
    sections: {},
    keys: rerankKeys,
    chunked: () => false,
    wraps: true,
    settings(config, ctx) {
      const base = rerankBase(config);
      return {
        kind: config.kind,
        ...ownValues(config, rerankKeys),
        base: base === null ? config.base : kindOf(base).settings(base, ctx),
      };
    },
    embeddings(config) {
      const base = rerankBase(config);
      return base === null ? [] : kindOf(base).embeddings(base);
    },
    needs(config, ctx) {
      const base = rerankBase(config);
      const baseNeeds = base === null ? [] : kindOf(base).needs(base, ctx);
      // Under --mock nothing is sent: no host, no key.
      if (ctx.mock) return baseNeeds;
      const who = needWho(ctx.name, config.kind);
      return [
        urlNeed(config.base_url, who, ctx.env ?? readEnv),
        ...variableNeeds([config.base_url], "base_url", who),
        ...variableNeeds(Object.values(config.headers), "headers", who),
        ...(config.api_key_env === null
          ? []
          : [{ name: "env" as const, value: config.api_key_env, why: `the API key of ${who}` }]),
        ...baseNeeds,
      ];
    },
    persisted(config) {
      const base = rerankBase(config);
      return {
        ...config,
        base_url: maskUrl(config.base_url),
        headers: maskHeaders(config.headers),
        base: base === null
          ? config.base
          : kindOf(base).persisted(base) as unknown as Record<string, unknown>,
      };
    },
    async build(request): Promise<Retriever> {
      return await (await import("../rerank_retriever.ts")).buildRerank(request);
    },
    indexing: () => null,
  });
}
