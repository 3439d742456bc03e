/**
 * The keys of the retriever kinds that call an engine or a service:
 * `rerank`, `http`, `postgres`, `opensearch` and `elasticsearch` (each
 * kind's own keys, beside `kind`, `top_k` and `chunk`: each kind's object in
 * lib/retrieval/kinds/ declares them, and lib/config/retriever_schema.ts
 * composes the strict schema of an entry from them). A value may hold `${VAR}` where a
 * secret can stand (a URL, a header, a connection string, a password): it
 * is filled in from the environment when the engine is first reached, and
 * never written to the run folder.
 *
 * @module
 */

import { z } from "zod";
import { parseJsonPath } from "../../util/json_path.ts";
import { embeddingSchema } from "../../dense/embedding_config.ts";
import type { KindConfig, RetrieverBase } from "../kinds/kind.ts";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A `${NAME}` template. */
const TEMPLATE = /\$\{[^}]*\}/;

/** A URL, or a text holding `${VAR}` templates that becomes one (checked when it is filled in). */
const urlOrTemplate = z.string().min(1).refine(
  (text) => TEMPLATE.test(text) || /^https?:\/\/[^/\s]/.test(text) && URL.canParse(text),
  { message: "must be an http:// or https:// URL (it may hold ${VAR})" },
);

/** Headers sent with every request; values may hold `${VAR}`. */
const headersSchema = z.record(
  z.string().regex(HEADER_NAME, "must be an HTTP header name"),
  z.string(),
).default({});

/** A JSON path (lib/util/json_path.ts). */
const jsonPath = z.string().superRefine((text, ctx) => {
  try {
    parseJsonPath(text);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `is not a JSON path: ${(error as Error).message}` });
  }
});

const envName = z.string().regex(ENV_NAME, "must be an environment variable name");

/** The call limits of a service (rerank, http). */
const callKeys = {
  /** Time one request may take, in seconds. */
  timeout_s: z.number().positive().max(3600).default(30),
  /** Retries after no response, 408, 409, 429 and 5xx. */
  max_retries: z.int().min(0).max(10).default(3),
  /** Largest reply read, in megabytes; a larger one is the question's error. */
  max_response_mb: z.number().positive().max(1024).default(8),
};

/** `kind: rerank`. */
export const rerankKeys = {
  /** The first stage: a `retrievers:` name, or a retriever written inline. */
  base: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  /** Passages of the base ranking sent to the reranker. */
  top_n: z.int().min(1).max(1000).default(50),
  /** The rerank model, as the service names it. */
  model: z.string().min(1),
  /** API root: `POST {base_url}/rerank` (e.g. https://api.cohere.com/v1, http://127.0.0.1:8000/v1). */
  base_url: urlOrTemplate,
  /** Variable holding the API key (sent as `Authorization: Bearer`); null: none. */
  api_key_env: envName.nullable().default(null),
  headers: headersSchema,
  ...callKeys,
  /** US dollars per million tokens (Jina, Voyage bill so); null: not billed by tokens. */
  price_per_mtok: z.number().nonnegative().nullable().default(null),
  /** US dollars per search unit (Cohere bills so); null: not billed by searches. */
  price_per_search_unit: z.number().nonnegative().nullable().default(null),
};

/** `kind: http`: the user's retrieval service. */
export const httpKeys = {
  /** The endpoint that gets `POST {"query": ..., "top_k": k}`. */
  url: urlOrTemplate,
  headers: headersSchema,
  /** Where the list of hits is in the reply. */
  results: jsonPath.default("$.results"),
  /** In a hit: the document id. */
  id: jsonPath.default("$.id"),
  /** In a hit: its score; null: hits are scored by rank. */
  score: jsonPath.nullable().default("$.score"),
  /** In a hit: the passage text; null: the document's text. */
  text: jsonPath.nullable().default("$.text"),
  /** In a hit: the service's own passage id; null: the document id. */
  passage_id: jsonPath.nullable().default(null),
  ...callKeys,
  max_retries: z.int().min(0).max(10).default(2),
};

/** An SQL name: `table` or `schema.table`. */
const sqlName = z.string().min(1).max(200).refine((n) => !n.includes("\0"), "holds a NUL");

/** `kind: postgres`. */
export const postgresKeys = {
  /** `postgresql://user[:password]@host[:port]/db[?host=/socket/dir]`, or `${VAR}` holding it. */
  connection: z.string().min(1),
  /** The text search configuration (`english`, `simple`, ...: `\dF` in psql lists them). */
  text_search_config: z.string().regex(
    /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/,
    "must be a text search configuration name",
  ).default("english"),
  /** `or`: any word matches; `and`: every word (plainto_tsquery); `websearch` (websearch_to_tsquery). */
  query: z.enum(["or", "and", "websearch"]).default("or"),
  /** `ts_rank_cd`'s normalization bits (0..63; 0: none, PostgreSQL's default). */
  normalization: z.int().min(0).max(63).default(0),
  /** An existing table to read (never written); null: ragbench loads the passages into its own. */
  table: sqlName.nullable().default(null),
  /** The named table's columns. */
  columns: z.strictObject({
    id: sqlName.default("id"),
    text: sqlName.default("text"),
    title: sqlName.nullable().default(null),
    tsvector: sqlName.nullable().default(null),
    passage_id: sqlName.nullable().default(null),
  }).prefault({}),
  /** Connections at once. */
  max_connections: z.int().min(1).max(64).default(4),
  /** Time a statement may take (and a connection), in seconds. */
  timeout_s: z.number().positive().max(3600).default(30),
  /** Longest text read from a row of a named table, in characters. */
  max_text_chars: z.int().min(1).max(10_000_000).default(20_000),
};

/** `kind: opensearch` and `kind: elasticsearch`. */
export const searchEngineKeys = {
  /** The engine's URL (a node), e.g. `https://127.0.0.1:9200`. */
  url: urlOrTemplate,
  /** Basic authentication; the password may be (and should be) `${VAR}`. */
  username: z.string().min(1).nullable().default(null),
  password: z.string().nullable().default(null),
  /** An API key (`Authorization: ApiKey ...`), usually `${VAR}`; null: none. */
  api_key: z.string().min(1).nullable().default(null),
  headers: headersSchema,
  /** An existing index to search (never written); null: ragbench indexes the passages itself. */
  index: z.string().min(1).max(255).nullable().default(null),
  /** The named index's source fields. */
  fields: z.strictObject({
    /** `_id`, or a source field holding the document id. */
    id: z.string().min(1).default("_id"),
    text: z.string().min(1).default("text"),
    /** Fields a bm25 search matches; null: the text field. */
    match: z.array(z.string().min(1)).min(1).nullable().default(null),
    passage_id: z.string().min(1).nullable().default(null),
  }).prefault({}),
  /** `bm25`: a match query; `knn`: the engine's kNN search over `vector_field`, queries embedded. */
  search: z.enum(["bm25", "knn"]).default("bm25"),
  /** The analyzer of ragbench's own index's text field. */
  analyzer: z.string().min(1).default("english"),
  vector_field: z.string().min(1).default("vector"),
  /** Candidates a kNN search considers per shard (at least k). */
  num_candidates: z.int().min(1).max(10_000).default(100),
  timeout_s: z.number().positive().max(3600).default(30),
  max_retries: z.int().min(0).max(10).default(3),
  max_response_mb: z.number().positive().max(1024).default(8),
  max_text_chars: z.int().min(1).max(10_000_000).default(20_000),
};

/** The sections the search engines read besides their keys (`embedding:`, for `search: knn`). */
export const searchEngineSections = { embedding: embeddingSchema.prefault({}) };

/** A `kind: rerank` entry after defaults. */
export type RerankConfig = KindConfig<Record<never, never>, typeof rerankKeys>;
/** A `kind: http` entry after defaults. */
export type HttpConfig = KindConfig<Record<never, never>, typeof httpKeys>;
/** A `kind: postgres` entry after defaults. */
export type PostgresConfig = KindConfig<Record<never, never>, typeof postgresKeys>;
/** A `kind: opensearch` or `kind: elasticsearch` entry after defaults. */
export type SearchEngineConfig = KindConfig<typeof searchEngineSections, typeof searchEngineKeys>;

/** The base of a reranker as a retriever's settings; null while it is still a name (unresolved). */
export function rerankBase(config: Pick<RerankConfig, "base">): RetrieverBase | null {
  return typeof config.base === "object" ? config.base as unknown as RetrieverBase : null;
}
