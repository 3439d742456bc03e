/**
 * The `postgres` retriever: PostgreSQL's full-text search, ranked with
 * `ts_rank_cd` (cover density) over a `tsvector` made with the configured
 * text search configuration (`english` by default).
 *
 * Two ways to use it:
 * - **ragbench's own table** (`table` unset): the run's passages are loaded
 *   into `ragbench_<hash>` (`ord`, `id`, `title`, `body`, and `tsv` =
 *   `to_tsvector(config, title || ' ' || body)` under a GIN index), in one
 *   transaction under an advisory lock, so a crash leaves no half-loaded
 *   table and two runs do not load it twice. The name is a hash of the
 *   passages and the configuration, so a later run over the same passages
 *   finds it and loads nothing; a changed corpus or chunking gets a new
 *   table. NUL characters, which PostgreSQL text cannot hold, are loaded as
 *   spaces. Hits are the run's passages.
 * - **an existing table** (`table: schema.name` with its `columns`): read,
 *   never written (the connection sets `default_transaction_read_only`, so
 *   the server itself refuses a write); each row is a document of the
 *   corpus (its id column holds document ids), its text column what `rag`
 *   and `search` show (cut to `max_text_chars`), its tsvector column used
 *   when given, else computed from title and text per query.
 *
 * The query is the question's words through the same configuration: `or`
 * (the default; any word matches, as ragbench's BM25 ranks), `and`
 * (`plainto_tsquery`: every word) or `websearch` (`websearch_to_tsquery`:
 * quotes, `or`, `-`). Equal ranks keep the passage order (or the id order of
 * an existing table). Statements are bounded by `timeout_s` on the server
 * and cancelled when the question's signal aborts.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { DEFAULT_TOP_K, type RetrieverBuildRequest } from "./kinds/kind.ts";
import type { PostgresConfig } from "./remote/engine_keys.ts";
import { RagbenchError } from "../errors.ts";
import type { Passage } from "../lexical/passages.ts";
import type { Document } from "../types.ts";
import { Secrets } from "../util/secrets.ts";
import { buildFailure, filled } from "./remote/engine_config.ts";
import { parsePgConnection } from "./remote/pg_connection.ts";
import { documentHits, documentsById, passageHits, passagesById } from "./remote/corpus_hits.ts";
import { openPgPool, type PgPool, quoteIdent, quoteTable } from "./remote/pg_client.ts";
import type { PgTarget } from "./remote/pg_connection.ts";
import type { EngineSite } from "./remote/remote_error.ts";
import { once } from "./remote/search_engine.ts";
import type { RetrievalOutcome, Retriever } from "./types.ts";

/** The columns of an existing table. */
export interface PgColumns {
  id: string;
  text: string;
  title: string | null;
  tsvector: string | null;
  passage_id: string | null;
}

/** What a postgres retriever is built from. */
export interface PostgresSpec {
  name: string;
  topK: number;
  target: PgTarget;
  site: EngineSite;
  secrets: Secrets;
  textSearchConfig: string;
  query: "or" | "and" | "websearch";
  /** `ts_rank_cd`'s normalization bits (0: none). */
  normalization: number;
  /** An existing table to read (null: ragbench's own, loaded with `passages`). */
  table: { name: string; columns: PgColumns } | null;
  /** The run's passages (loaded into ragbench's own table). */
  passages: readonly Passage[];
  /** The corpus's documents by id (the ids an existing table must hold). */
  documents: ReadonlyMap<string, Document>;
  timeoutMs: number;
  maxConnections: number;
  /** Longest text read from an existing table's rows, in characters. */
  maxTextChars: number;
  /** Cancels the load. */
  signal: AbortSignal;
  progress?: (line: string) => void;
}

/** A postgres retriever, with the pool to close when the run ends. */
export interface PostgresRetriever extends Retriever {
  /** The table searched. */
  readonly table: string;
  close(): Promise<void>;
}

/**
 * Builds a `kind: postgres` retriever of a run: fills in the connection
 * string, connects, and loads the passages (or checks the named table).
 *
 * @throws {RagbenchError} for a bad connection string, or naming the retriever
 *   and the server when it cannot be reached or refuses.
 */
export async function buildPostgres(
  request: RetrieverBuildRequest<PostgresConfig>,
): Promise<PostgresRetriever> {
  const config = request.config;
  const secrets = new Secrets();
  const text = filled(config.connection, "connection", request, secrets);
  let target;
  try {
    target = parsePgConnection(text);
  } catch (error) {
    throw new RagbenchError(
      "config",
      `Retriever "${request.name}": its connection is not usable: ${(error as Error).message}.`,
    );
  }
  if (target.password !== null) secrets.add(target.password);
  try {
    return await buildPostgresRetriever({
      name: request.name,
      topK: config.top_k ?? DEFAULT_TOP_K,
      target,
      site: { retriever: request.name, kind: "postgres", host: target.printable },
      secrets,
      textSearchConfig: config.text_search_config,
      query: config.query,
      normalization: config.normalization,
      table: config.table === null ? null : { name: config.table, columns: config.columns },
      passages: request.passages,
      documents: documentsById(request.corpus.documents),
      timeoutMs: config.timeout_s * 1000,
      maxConnections: config.max_connections,
      maxTextChars: config.max_text_chars,
      signal: request.signal,
      ...(request.progress ? { progress: request.progress } : {}),
    });
  } catch (error) {
    throw buildFailure(error);
  }
}

/** Rows inserted per statement while loading. */
const LOAD_BATCH = 1000;

/**
 * Connects, loads the passages (or checks the named table and columns) and
 * returns the retriever.
 *
 * @throws {EngineError} when the server cannot be reached or refuses.
 */
export async function buildPostgresRetriever(spec: PostgresSpec): Promise<PostgresRetriever> {
  const pool = await openPgPool(spec.target, {
    site: spec.site,
    secrets: spec.secrets,
    max: spec.maxConnections,
    statementTimeoutMs: spec.timeoutMs,
    connectTimeoutS: Math.max(1, Math.ceil(spec.timeoutMs / 1000)),
    readOnly: spec.table !== null,
  });
  try {
    return spec.table === null ? await ownTable(spec, pool) : await namedTable(spec, pool);
  } catch (error) {
    await pool.close().catch(() => {});
    throw error;
  }
}

/** The name of ragbench's table for `passages` under `config`. */
export function ownTableName(passages: readonly Passage[], config: string): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ v: 1, config, passages: passages.length }));
  for (const p of passages) hash.update(JSON.stringify([p.id, p.title, p.text]));
  return `ragbench_${hash.digest("hex").slice(0, 24)}`;
}

async function ownTable(spec: PostgresSpec, pool: PgPool): Promise<PostgresRetriever> {
  const name = ownTableName(spec.passages, spec.textSearchConfig);
  const table = quoteIdent(name);
  await pool.query("SELECT $1::regconfig", [spec.textSearchConfig], spec.signal);
  const loaded = await pool.transaction(async (tx) => {
    await tx.query("SET LOCAL statement_timeout = 0", []);
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [name]);
    const [found] = await tx.query<{ rows: string | null }>(
      "SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE 'yes' END AS rows",
      [table],
    );
    if (found.rows !== null) return false;
    spec.progress?.(
      `retriever ${spec.name}: loading ${spec.passages.length} passages into ${name} ` +
        `(${spec.site.host})`,
    );
    await tx.query(
      `CREATE TABLE ${table} (ord integer PRIMARY KEY, id text NOT NULL, title text NOT NULL, ` +
        "body text NOT NULL, tsv tsvector)",
      [],
    );
    for (let start = 0; start < spec.passages.length; start += LOAD_BATCH) {
      const rows = spec.passages.slice(start, start + LOAD_BATCH).map((p, i) => ({
        ord: start + i,
        id: p.id,
        title: noNul(p.title),
        body: noNul(p.text),
      }));
      await tx.insert(table, rows);
    }
    await tx.query(
      `UPDATE ${table} SET tsv = to_tsvector($1::regconfig, title || ' ' || body)`,
      [spec.textSearchConfig],
    );
    await tx.query(`CREATE INDEX ON ${table} USING gin (tsv)`, []);
    await tx.query(`ANALYZE ${table}`, []);
    return true;
  }, spec.signal);
  if (!loaded) spec.progress?.(`retriever ${spec.name}: reusing table ${name} (${spec.site.host})`);
  const byId = passagesById(spec.passages);
  const sql = `SELECT id, ts_rank_cd(tsv, q, $3) AS score FROM ${table}, ` +
    `(SELECT ${tsquery(spec.query)} AS q) AS query WHERE tsv @@ q ` +
    "ORDER BY score DESC, ord LIMIT $4";
  return retriever(spec, pool, name, spec.passages, async (query, k, signal) => {
    const rows = await pool.query<{ id: string; score: number }>(
      sql,
      [spec.textSearchConfig, query, spec.normalization, k],
      signal,
    );
    return passageHits(rows.map((r) => ({ id: r.id, score: Number(r.score) })), byId, spec.site);
  });
}

async function namedTable(spec: PostgresSpec, pool: PgPool): Promise<PostgresRetriever> {
  const { name, columns } = spec.table!;
  const table = quoteTable(name);
  const id = quoteIdent(columns.id);
  const text = quoteIdent(columns.text);
  const title = columns.title === null ? null : quoteIdent(columns.title);
  const vector = columns.tsvector === null
    ? `to_tsvector($1::regconfig, ${
      title === null ? "" : `coalesce(${title}::text, '') || ' ' || `
    }` +
      `coalesce(${text}::text, ''))`
    : quoteIdent(columns.tsvector);
  const passageId = columns.passage_id === null
    ? "NULL"
    : `${quoteIdent(columns.passage_id)}::text`;
  // Checks the table, its columns and the configuration before the first question.
  await pool.query(
    `SELECT ${id}::text AS id, ${passageId} AS passage_id, ${text}::text AS text, ` +
      `${vector} AS v, $1::regconfig AS config FROM ${table} LIMIT 0`,
    [spec.textSearchConfig],
    spec.signal,
  );
  const sql = `SELECT ${id}::text AS id, ${passageId} AS passage_id, ` +
    `left(${text}::text, $5) AS text, ts_rank_cd(${vector}, q, $3) AS score ` +
    `FROM ${table}, (SELECT ${tsquery(spec.query)} AS q) AS query WHERE ${vector} @@ q ` +
    `ORDER BY score DESC, ${id} LIMIT $4`;
  return retriever(spec, pool, name, [], async (query, k, signal) => {
    const rows = await pool.query<
      { id: string | null; passage_id: string | null; text: string | null; score: number }
    >(sql, [spec.textSearchConfig, query, spec.normalization, k, spec.maxTextChars], signal);
    return documentHits(
      rows.map((r) => ({
        id: r.id ?? "",
        passage_id: r.passage_id,
        score: Number(r.score),
        text: r.text ?? "",
      })),
      spec.documents,
      spec.site,
    );
  });
}

function retriever(
  spec: PostgresSpec,
  pool: PgPool,
  table: string,
  passages: readonly Passage[],
  search: (query: string, k: number, signal: AbortSignal) => Promise<RetrievalOutcome["hits"]>,
): PostgresRetriever {
  return {
    name: spec.name,
    kind: "postgres",
    topK: spec.topK,
    passages,
    table,
    async search(query, k, signal): Promise<RetrievalOutcome> {
      if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be >= 1, got ${k}`);
      return { hits: await search(query, k, signal), embedding_tokens: 0, cost_usd: 0 };
    },
    close: once(() => pool.close()),
  };
}

/** The tsquery of `$2` under the configuration `$1` (see the module docs). */
function tsquery(mode: PostgresSpec["query"]): string {
  if (mode === "and") return "plainto_tsquery($1::regconfig, $2)";
  if (mode === "websearch") return "websearch_to_tsquery($1::regconfig, $2)";
  // plainto_tsquery's text joins quoted lexemes with " & "; a lexeme holds no space.
  return "replace(plainto_tsquery($1::regconfig, $2)::text, ' & ', ' | ')::tsquery";
}

function noNul(text: string): string {
  return text.includes("\0") ? text.replaceAll("\0", " ") : text;
}
