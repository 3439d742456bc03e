/**
 * `kind: postgres`: PostgreSQL full-text search (`lib/retrieval/postgres_retriever.ts`
 * and its client, loaded only by a run that builds one). With its own table
 * it cuts the corpus into passages and a build depends on `chunk` too; over
 * a named table it cuts none. It needs net for the server's host and port,
 * or read, write and `unix:` net for a Unix socket, and env for each
 * `${VAR}` of the connection string; a literal password in it is masked in
 * the run folder.
 *
 * @module
 */

import type { Retriever } from "../types.ts";
import { postgresKeys } from "../remote/engine_keys.ts";
import { needWho, postgresNeeds, variableNeeds } from "../remote/engine_needs.ts";
import { maskUrl } from "../remote/secret_mask.ts";
import { readEnv } from "../../util/secrets.ts";
import { defineRetrieverKind, ownValues } from "./kind.ts";

/** The postgres retriever kind. */
export const postgresKind = defineRetrieverKind({
  kind: "postgres",
  sections: {},
  keys: postgresKeys,
  chunked: (config) => config.table === null,
  wraps: false,
  settings: (config) => ({
    kind: config.kind,
    ...ownValues(config, postgresKeys),
    ...(config.table === null ? { chunk: config.chunk } : {}),
  }),
  embeddings: () => [],
  needs(config, ctx) {
    const who = needWho(ctx.name, config.kind);
    return [
      ...postgresNeeds(config.connection, who, ctx.env ?? readEnv),
      ...variableNeeds([config.connection], "connection", who),
    ];
  },
  persisted: (config) => ({ ...config, connection: maskUrl(config.connection) }),
  async build(request): Promise<Retriever> {
    return await (await import("../postgres_retriever.ts")).buildPostgres(request);
  },
  indexing: () => null,
});
