/**
 * `kind: http`: the user's own retrieval service, POSTed `{query, top_k}`,
 * its JSON read by JSON paths (`lib/retrieval/http_retriever.ts`, loaded
 * only by a run that builds one). It cuts no passages (the service returns
 * its own); a build depends on its keys (the URL and headers as written,
 * templates unexpanded); it needs net for the service's host and env for
 * each `${VAR}` of its URL and headers; literal header values and a URL's
 * password are masked in the run folder.
 *
 * @module
 */

import type { Retriever } from "../types.ts";
import { httpKeys } from "../remote/engine_keys.ts";
import { needWho, urlNeed, variableNeeds } from "../remote/engine_needs.ts";
import { maskHeaders, maskUrl } from "../remote/secret_mask.ts";
import { readEnv } from "../../util/secrets.ts";
import { defineRetrieverKind, ownValues } from "./kind.ts";

/** The http retriever kind. */
export const httpKind = defineRetrieverKind({
  kind: "http",
  sections: {},
  keys: httpKeys,
  chunked: () => false,
  wraps: false,
  settings: (config) => ({ kind: config.kind, ...ownValues(config, httpKeys) }),
  embeddings: () => [],
  needs(config, ctx) {
    const who = needWho(ctx.name, config.kind);
    return [
      urlNeed(config.url, who, ctx.env ?? readEnv),
      ...variableNeeds([config.url], "url", who),
      ...variableNeeds(Object.values(config.headers), "headers", who),
    ];
  },
  persisted: (config) => ({
    ...config,
    url: maskUrl(config.url),
    headers: maskHeaders(config.headers),
  }),
  async build(request): Promise<Retriever> {
    return await (await import("../http_retriever.ts")).buildHttp(request);
  },
  indexing: () => null,
});
