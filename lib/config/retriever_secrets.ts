/**
 * A retriever's settings as the run folder may hold them
 * (`config.resolved.yaml`, the hashes of `run.json`): each kind masks the
 * literal secrets of its own keys (its `persisted` facet; the masking is
 * lib/retrieval/remote/secret_mask.ts): the password of a connection string
 * or of a URL, a search engine's password and API key, every header's value.
 * `${VAR}` templates are kept as written.
 *
 * @module
 */

import { kindOf } from "../retrieval/kinds/registry.ts";
import type { RetrieverConfig } from "./retriever_schema.ts";

export { maskUrl, SECRET_MASK } from "../retrieval/remote/secret_mask.ts";

/** `config` with its literal secrets masked (a new object; `config` is not changed). */
export function persistedRetriever(config: RetrieverConfig): RetrieverConfig {
  return kindOf(config).persisted(config) as RetrieverConfig;
}
