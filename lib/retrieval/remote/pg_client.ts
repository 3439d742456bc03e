/**
 * ragbench's use of the `postgres` npm client (postgres.js, pinned in
 * deno.json; pure JavaScript, no native library): a pool of connections
 * opened with every setting given explicitly (pg_connection.ts), loaded with
 * `import()` only by a run that has a `postgres` retriever, and built while
 * `process.env` is empty so that it reads no `PG*` variable.
 *
 * Each statement is bounded on the server by `statement_timeout`, and in
 * the client by that limit and a margin ({@link clientLimitMs}): a server
 * that stalls (enforcing nothing) still gives the question an error. When
 * the caller's signal aborts or the client's limit passes, the statement is
 * given up at once and a cancel request sent (best effort). A load's
 * transaction is abandoned the same way when its signal aborts.
 * Failures become {@link EngineError}s naming the retriever and the server
 * (user, host or socket, database; never the password), with the server's
 * own message, masked, and what to do.
 *
 * @module
 */

import type postgres from "postgres";
import type { Secrets } from "../../util/secrets.ts";
import { withoutEnvironment } from "../../util/node_env.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";
import type { PgTarget } from "./pg_connection.ts";

/** An open pool. Close it when the run ends. */
export interface PgPool {
  /**
   * Runs one statement with `$1`-style parameters and returns its rows.
   *
   * @throws {EngineError} when it fails or `signal` aborts.
   */
  query<T = Record<string, unknown>>(
    text: string,
    params: readonly unknown[],
    signal: AbortSignal,
  ): Promise<T[]>;
  /**
   * Runs `body` in one transaction on one connection (committed when it
   * resolves, rolled back when it rejects).
   */
  transaction<T>(body: (tx: PgTransaction) => Promise<T>, signal: AbortSignal): Promise<T>;
  close(): Promise<void>;
}

/** A statement runner inside a transaction. */
export interface PgTransaction {
  query<T = Record<string, unknown>>(text: string, params: readonly unknown[]): Promise<T[]>;
  /** Inserts `rows` (objects with the same keys) into `table` (already quoted) in one statement. */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
}

/** Options of {@link openPgPool}. */
export interface PgPoolOptions {
  site: EngineSite;
  secrets: Secrets;
  /** Most connections at once. */
  max: number;
  /** Server-side limit of one statement, ms (0: none). */
  statementTimeoutMs: number;
  /** Seconds to wait for a connection (the target's `connect_timeout` wins). */
  connectTimeoutS: number;
  /** Sessions refuse every write (`default_transaction_read_only`). */
  readOnly: boolean;
}

// deno-lint-ignore ban-types
type Sql = postgres.Sql<{}>;

/** Opens a pool (connections are made on first use). */
export async function openPgPool(target: PgTarget, options: PgPoolOptions): Promise<PgPool> {
  const { default: connect } = await import("postgres");
  const sql: Sql = withoutEnvironment(() =>
    connect({
      host: target.socket === null ? target.host! : target.socket.replace(/\/\.s\.PGSQL\.\d+$/, ""),
      port: target.port,
      ...(target.socket === null ? {} : { path: target.socket }),
      user: target.user,
      pass: target.password ?? "",
      database: target.database,
      ssl: sslOption(target.sslmode),
      max: options.max,
      connect_timeout: target.connectTimeoutS ?? options.connectTimeoutS,
      idle_timeout: 30,
      onnotice: () => {},
      connection: {
        application_name: "ragbench",
        statement_timeout: options.statementTimeoutMs,
        ...(options.readOnly ? { default_transaction_read_only: "on" } : {}),
      },
      fetch_types: false,
    } as postgres.Options<Record<string, never>>)
  );
  const fail = (error: unknown) => describePgError(error, options.site, options.secrets, target);
  /** Whether a statement was given up on (cancelled, or past the client's limit). */
  let gaveUp = false;
  return {
    async query<T>(text: string, params: readonly unknown[], signal: AbortSignal) {
      const cancelled = () => new EngineError(options.site, "the query was cancelled.");
      if (signal.aborted) throw cancelled();
      const limitMs = clientLimitMs(options.statementTimeoutMs);
      const pending = sql.unsafe(text, params as never[]);
      // Settled by whichever comes first: the reply, the caller's abort, or the client's limit
      // (a server that stalls answers neither the statement nor its cancel request).
      let stop: (error: EngineError) => void = () => {};
      const stopped = new Promise<never>((_, reject) => stop = reject);
      const onAbort = () => stop(cancelled());
      const timer = limitMs === null ? null : setTimeout(() =>
        stop(
          new EngineError(
            options.site,
            `did not answer a statement within ${limitMs / 1000} s (timeout_s is ${
              options.statementTimeoutMs / 1000
            } s, which the server itself did not enforce). Check that the server is up and ` +
              "not overloaded, or raise timeout_s.",
            { retryable: true },
          ),
        ), limitMs);
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        return await Promise.race([pending, stopped]) as unknown as T[];
      } catch (error) {
        if (error instanceof EngineError) {
          gaveUp = true;
          // Asks the server to stop it (best effort); its own outcome no longer matters.
          pending.catch(() => {});
          void Promise.resolve().then(() => pending.cancel()).catch(() => {});
          throw error;
        }
        if (signal.aborted) throw cancelled();
        throw fail(error);
      } finally {
        if (timer !== null) clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      }
    },
    async transaction<T>(body: (tx: PgTransaction) => Promise<T>, signal: AbortSignal) {
      const cancelled = () => new EngineError(options.site, "the load was cancelled.");
      if (signal.aborted) throw cancelled();
      // A statement in flight is not waited for once the signal aborts (a stalled server
      // would never answer it): the transaction is left to the pool's close, which ends it.
      let stop: (error: EngineError) => void = () => {};
      const stopped = new Promise<never>((_, reject) => stop = reject);
      const onAbort = () => {
        gaveUp = true;
        stop(cancelled());
      };
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const running = sql.begin(async (tx: postgres.TransactionSql) => {
          const runner: PgTransaction = {
            async query<R>(text: string, params: readonly unknown[]) {
              signal.throwIfAborted();
              return await tx.unsafe(text, params as never[]) as unknown as R[];
            },
            async insert(table, rows) {
              signal.throwIfAborted();
              if (rows.length === 0) return;
              const keys = Object.keys(rows[0]);
              const values: unknown[] = [];
              const tuples = rows.map((row, r) =>
                `(${
                  keys.map((key, c) => {
                    values.push(row[key]);
                    return `$${r * keys.length + c + 1}`;
                  }).join(", ")
                })`
              );
              await tx.unsafe(
                `INSERT INTO ${table} (${keys.map(quoteIdent).join(", ")}) VALUES ${
                  tuples.join(", ")
                }`,
                values as never[],
              );
            },
          };
          return await body(runner);
        });
        running.catch(() => {});
        return await Promise.race([running, stopped]) as T;
      } catch (error) {
        if (error instanceof EngineError) throw error;
        if (signal.aborted) throw cancelled();
        throw fail(error);
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
    async close() {
      // A statement given up on may never be answered: its connection is closed at once.
      await sql.end({ timeout: gaveUp ? 0 : 5 });
    },
  };
}

/**
 * How long the client waits for a statement's answer: the server's own
 * limit (`statement_timeout`) and a margin for its error to arrive, so a
 * live server's timeout is what the user sees, and a stalled one (which
 * enforces nothing) is still given up on. Null when statements have no limit.
 */
export function clientLimitMs(statementTimeoutMs: number): number | null {
  if (statementTimeoutMs <= 0) return null;
  return statementTimeoutMs + Math.min(2000, statementTimeoutMs);
}

/** `name` as an SQL identifier: in double quotes, inner quotes doubled. */
export function quoteIdent(name: string): string {
  if (name.includes("\0")) throw new RangeError("an SQL name cannot hold a NUL character");
  return `"${name.replaceAll('"', '""')}"`;
}

/** `schema.table` or `table` as a quoted SQL name (each part quoted). */
export function quoteTable(name: string): string {
  return name.split(".").map(quoteIdent).join(".");
}

function sslOption(mode: string): boolean | string {
  if (mode === "disable") return false;
  if (mode === "verify-ca") return "verify-full";
  return mode;
}

/** What a failure of the client means, said for the user. */
export function describePgError(
  error: unknown,
  site: EngineSite,
  secrets: Secrets,
  target: PgTarget,
): EngineError {
  if (error instanceof EngineError) return error;
  const record = (error ?? {}) as { code?: unknown; message?: unknown; errno?: unknown };
  const code = typeof record.code === "string" ? record.code : "";
  const raw = typeof record.message === "string" ? record.message : String(error);
  const said = clip(secrets.redact(raw).replace(/\s+/g, " ").trim(), 300);
  const where = target.socket ?? `${target.host}:${target.port}`;
  if (error instanceof Deno.errors.NotCapable || /Requires (net|read|write) access/.test(raw)) {
    return new EngineError(
      site,
      `could not connect: permission to reach ${where} was not granted (${said}). ` +
        "Run with the flags `ragbench permissions CONFIG` prints.",
      { cause: error },
    );
  }
  if (code === "ECONNREFUSED" || code === "ENOENT" || /connection refused/i.test(raw)) {
    return new EngineError(
      site,
      `could not connect: connection refused (nothing listens at ${where}). ` +
        "Check the connection string and that PostgreSQL is running.",
      { cause: error, retryable: true },
    );
  }
  if (code === "CONNECT_TIMEOUT") {
    return new EngineError(site, `did not accept a connection in time (${where}).`, {
      cause: error,
      retryable: true,
    });
  }
  if (code === "CONNECTION_CLOSED" || code === "CONNECTION_ENDED" || code === "ECONNRESET") {
    return new EngineError(site, `closed the connection (${said}).`, { cause: error });
  }
  const advice = PG_ADVICE.get(code) ?? "";
  return new EngineError(
    site,
    `failed: ${said}${code && /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : ""}.${
      advice ? ` ${advice}` : ""
    }`,
    { cause: error },
  );
}

/** What to do about the server errors a config can cause. */
const PG_ADVICE: ReadonlyMap<string, string> = new Map([
  ["28P01", "Check the user and the password in the connection string."],
  ["28000", "The server refused this user (pg_hba.conf); check the connection string."],
  ["3D000", "Check the database name in the connection string."],
  ["42P01", "Check the retriever's table (schema.table) and that it exists."],
  ["42703", "Check the retriever's columns against the table."],
  ["42704", "Check text_search_config: it must name a text search configuration of the server."],
  ["42501", "The user may not read (or create) this table; grant it, or use another user."],
  ["25006", "The named table is read, never written: ragbench only writes to a table it creates."],
  ["57014", "The statement ran past the retriever's timeout_s (statement_timeout)."],
]);

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}...`;
}
