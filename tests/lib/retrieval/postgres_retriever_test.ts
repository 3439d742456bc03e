/**
 * The postgres retriever against a real PostgreSQL server from Debian's
 * package (tests/support/postgres_server.ts), started in a temporary folder
 * on 127.0.0.1 and stopped at the end. Skipped, saying so, where the package
 * is not installed (`.ci/run` installs it).
 */

import assert from "node:assert/strict";
import {
  buildPostgresRetriever,
  ownTableName,
  type PostgresSpec,
} from "../../../lib/retrieval/postgres_retriever.ts";
import { parsePgConnection } from "../../../lib/retrieval/remote/pg_connection.ts";
import { openPgPool } from "../../../lib/retrieval/remote/pg_client.ts";
import { documentsById } from "../../../lib/retrieval/remote/corpus_hits.ts";
import { Secrets } from "../../../lib/util/secrets.ts";
import type { Passage } from "../../../lib/lexical/passages.ts";
import type { Document } from "../../../lib/types.ts";
import {
  findPostgresBin,
  PG_TEST_PASSWORD,
  type PgTestServer,
  startPostgres,
} from "../../support/postgres_server.ts";
import { stallingServer } from "../../support/stalling_server.ts";
import { settledWithin, waitUntil } from "../../support/wait.ts";

const signal = new AbortController().signal;
const bin = findPostgresBin();
if (bin === null) {
  // deno-lint-ignore no-console
  console.error("postgres_retriever_test: PostgreSQL is not installed; skipped.");
}

const DOCS: Document[] = [
  {
    id: "wing",
    title: "Wings",
    text: "Lift on a swept wing rises with the angle of attack.",
    source: "t",
  },
  {
    id: "heat",
    title: "Heat",
    text: "Heat transfer in a boundary layer at high speed.",
    source: "t",
  },
  { id: "wing2", title: "More wings", text: "Swept wings stall at the tip first.", source: "t" },
  { id: "nul", title: "Odd", text: "a text with a \0 NUL inside", source: "t" },
];
const PASSAGES: Passage[] = DOCS.map((d) => ({
  id: `${d.id}#0`,
  doc_id: d.id,
  index: 0,
  title: d.title,
  text: d.text,
}));

function spec(url: string, over: Partial<PostgresSpec> = {}): PostgresSpec & { lines: string[] } {
  const lines: string[] = [];
  const target = parsePgConnection(url);
  return {
    name: "pg",
    topK: 5,
    target,
    site: { retriever: "pg", kind: "postgres", host: target.printable },
    secrets: secretsOf(),
    textSearchConfig: "english",
    query: "or",
    normalization: 0,
    table: null,
    passages: PASSAGES,
    documents: documentsById(DOCS),
    timeoutMs: 10_000,
    maxConnections: 2,
    maxTextChars: 1000,
    signal,
    progress: (line) => lines.push(line),
    lines,
    ...over,
  };
}

function secretsOf(): Secrets {
  const secrets = new Secrets();
  secrets.add(PG_TEST_PASSWORD);
  return secrets;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

Deno.test({
  name: "postgres retriever over a real server: load, rank, reuse, read-only tables, errors",
  ignore: bin === null,
  async fn(t) {
    let server: PgTestServer | null = await startPostgres();
    try {
      const pg = server;
      await t.step("loads the passages into its own table and ranks any-word matches", async () => {
        const s = spec(pg.tcpUrl);
        const retriever = await buildPostgresRetriever(s);
        try {
          const name = ownTableName(PASSAGES, "english");
          assert.equal(retriever.table, name);
          assert.deepEqual(s.lines, [
            `retriever pg: loading 4 passages into ${name} (${s.site.host})`,
          ]);
          const outcome = await retriever.search("swept wings stall", 5, signal);
          // "wing2" holds all three words, "wing" one ("swept"; wing stems to wing).
          assert.deepEqual(outcome.hits.map((h) => h.passage.id), ["wing2#0", "wing#0"]);
          assert.ok(outcome.hits[0].score > outcome.hits[1].score);
          assert.equal(outcome.hits[0].passage, PASSAGES[2]);
          assert.deepEqual((await retriever.search("the of a", 5, signal)).hits, []);
          // The NUL was loaded as a space.
          assert.deepEqual(
            (await retriever.search("NUL inside", 5, signal)).hits.map((h) => h.passage.id),
            [
              "nul#0",
            ],
          );
        } finally {
          await retriever.close();
        }
        const again = spec(pg.tcpUrl);
        const second = await buildPostgresRetriever(again);
        await second.close();
        assert.deepEqual(again.lines, [
          `retriever pg: reusing table ${ownTableName(PASSAGES, "english")} (${again.site.host})`,
        ]);
      });

      await t.step("and and websearch queries", async () => {
        const and = await buildPostgresRetriever(spec(pg.tcpUrl, { query: "and" }));
        const web = await buildPostgresRetriever(spec(pg.tcpUrl, { query: "websearch" }));
        try {
          assert.deepEqual(
            (await and.search("swept stall", 5, signal)).hits.map((h) => h.passage.id),
            [
              "wing2#0",
            ],
          );
          assert.deepEqual(
            (await web.search('swept -"stall"', 5, signal)).hits.map((h) => h.passage.id),
            ["wing#0"],
          );
        } finally {
          await and.close();
          await web.close();
        }
      });

      await pg.psql(
        "CREATE TABLE docs (doc_id text, title text, body text, tsv tsvector);" +
          "INSERT INTO docs VALUES ('wing', 'Wings', 'lift of swept wings', NULL)," +
          "('heat', 'Heat', 'heat transfer', NULL), ('ghost', 'Ghost', 'swept away', NULL);" +
          "UPDATE docs SET tsv = to_tsvector('english', title || ' ' || body);",
      );
      const table = (over: Partial<{ tsvector: string | null; name: string }> = {}) => ({
        name: over.name ?? "public.docs",
        columns: {
          id: "doc_id",
          text: "body",
          title: "title",
          tsvector: over.tsvector ?? null,
          passage_id: null,
        },
      });

      await t.step("reads a named table, read-only, its rows as documents", async () => {
        for (const tsvector of [null, "tsv"]) {
          const retriever = await buildPostgresRetriever(
            spec(pg.tcpUrl, { table: table({ tsvector }) }),
          );
          try {
            assert.equal(retriever.passages.length, 0);
            const outcome = await retriever.search("heat transfer", 5, signal);
            assert.deepEqual(
              outcome.hits.map((h) => [h.passage.id, h.passage.doc_id, h.passage.text]),
              [
                ["heat", "heat", "heat transfer"],
              ],
            );
            // A row whose id is not a document of the corpus is an error, not a dropped hit.
            const error = await failure(retriever.search("swept", 5, signal));
            assert.match(
              error.message,
              /^Retriever "pg" \(postgres\) at postgresql:\/\/ragbench@127\.0\.0\.1:\d+\/postgres: /,
            );
            assert.match(
              error.message,
              /returned document id "ghost" \(result \d\), which is not one of the run's 4 documents/,
            );
          } finally {
            await retriever.close();
          }
        }
        const readOnly = await openPgPool(parsePgConnection(pg.tcpUrl), {
          site: { retriever: "pg", kind: "postgres", host: "h" },
          secrets: secretsOf(),
          max: 1,
          statementTimeoutMs: 5000,
          connectTimeoutS: 5,
          readOnly: true,
        });
        try {
          const error = await failure(readOnly.query("DELETE FROM docs", [], signal));
          assert.match(
            error.message,
            /cannot execute DELETE in a read-only transaction \(SQLSTATE 25006\)/,
          );
        } finally {
          await readOnly.close();
        }
        assert.match(await pg.psql("SELECT count(*) FROM docs;"), /3/);
      });

      await t.step(
        "a missing table, a missing column, a bad configuration, a bad password",
        async () => {
          const cases: Array<[PostgresSpec, RegExp]> = [
            [
              spec(pg.tcpUrl, { table: table({ name: "nope" }) }),
              /relation "nope" does not exist \(SQLSTATE 42P01\)\. Check the retriever's table/,
            ],
            [
              spec(pg.tcpUrl, {
                table: { ...table(), columns: { ...table().columns, text: "words" } },
              }),
              /column "words" does not exist.*SQLSTATE 42703/,
            ],
            [
              spec(pg.tcpUrl, { textSearchConfig: "klingon" }),
              /text search configuration "klingon" does not exist.*Check text_search_config/,
            ],
            [
              spec(pg.tcpUrl.replace(PG_TEST_PASSWORD, "wrong-password-1")),
              /password authentication failed for user "ragbench" \(SQLSTATE 28P01\)\. Check the user and the password/,
            ],
          ];
          for (const [s, message] of cases) {
            const error = await failure(buildPostgresRetriever(s));
            assert.match(
              error.message,
              /^Retriever "pg" \(postgres\) at postgresql:\/\/ragbench@127\.0\.0\.1/,
            );
            assert.match(error.message, message);
            assert.ok(!error.message.includes(PG_TEST_PASSWORD));
          }
        },
      );

      await t.step(
        "a server that went down gives the question an error naming the host",
        async () => {
          const retriever = await buildPostgresRetriever(spec(pg.tcpUrl));
          try {
            await pg.stop();
            server = null;
            const error = await failure(retriever.search("swept wings", 5, signal));
            assert.match(
              error.message,
              /^Retriever "pg" \(postgres\) at postgresql:\/\/ragbench@127\.0\.0\.1:\d+\/postgres: /,
            );
            assert.match(error.message, /(connection refused|closed the connection|terminat)/);
          } finally {
            await retriever.close().catch(() => {});
          }
        },
      );
    } finally {
      await server?.stop();
    }
  },
});

// A server that hangs (these need no PostgreSQL: a loopback server plays one).

Deno.test("postgres: a server that accepts and never answers is a connection timeout naming the retriever", async () => {
  await using server = stallingServer("silent");
  const error = await failure(buildPostgresRetriever(spec(
    `postgresql://ragbench@127.0.0.1:${server.port}/postgres?sslmode=disable`,
    { timeoutMs: 1000 },
  )));
  assert.equal(
    error.message,
    `Retriever "pg" (postgres) at postgresql://ragbench@127.0.0.1:${server.port}/postgres: ` +
      `did not accept a connection in time (127.0.0.1:${server.port}).`,
  );
});

Deno.test("postgres: a server that stalls on a statement is a timeout error, not a hang", async () => {
  await using server = stallingServer("pg_mid_query");
  const error = await settledWithin(failure(buildPostgresRetriever(spec(
    `postgresql://ragbench@127.0.0.1:${server.port}/postgres?sslmode=disable`,
    { timeoutMs: 1000 },
  ))));
  assert.match(
    error.message,
    new RegExp(
      `^Retriever "pg" \\(postgres\\) at postgresql://ragbench@127\\.0\\.0\\.1:${server.port}/postgres: ` +
        "did not answer a statement within 2 s \\(timeout_s is 1 s, which the server itself did " +
        "not enforce\\)\\. Check that the server is up",
    ),
  );
  assert.equal(server.requests, 1);
});

Deno.test("postgres: Ctrl-C (the question's signal) ends a statement the server never answers", async () => {
  await using server = stallingServer("pg_mid_query");
  const url = `postgresql://ragbench@127.0.0.1:${server.port}/postgres?sslmode=disable`;
  const target = parsePgConnection(url);
  const pool = await openPgPool(target, {
    site: { retriever: "pg", kind: "postgres", host: target.printable },
    secrets: new Secrets(),
    max: 1,
    statementTimeoutMs: 600_000,
    connectTimeoutS: 600,
    readOnly: true,
  });
  try {
    const controller = new AbortController();
    const pending = failure(pool.query("SELECT 1", [], controller.signal));
    assert.ok(await waitUntil(() => server.requests > 0), "the statement reached the server");
    controller.abort();
    const error = await settledWithin(pending);
    assert.equal(
      error.message,
      `Retriever "pg" (postgres) at ${target.printable}: the query was cancelled.`,
    );
  } finally {
    await pool.close();
  }
});
