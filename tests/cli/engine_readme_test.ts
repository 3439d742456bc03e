/**
 * Every config example of docs/retrievers.md's "Engines and services as
 * retrievers" section, run by `ragbench run` against the engine it names:
 * a loopback rerank service, a loopback retrieval service, a real
 * PostgreSQL server of Debian's package, and the OpenSearch and
 * Elasticsearch transcripts (tests/fixtures/engines). Each example's
 * `127.0.0.1:PORT` is replaced by the test server's address; its `${VAR}`s
 * are set; each retriever gets a `retrieval_only` system.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";
import { json, type Loopback, loopback } from "../support/loopback_server.ts";
import { rerankServer } from "../support/rerank_server.ts";
import { findPostgresBin, type PgTestServer, startPostgres } from "../support/postgres_server.ts";
import { readTranscript, replayServer } from "../support/engine_transcripts.ts";
import { ENGINE_DOCS } from "../support/engine_scenarios.ts";

const PAGE = Deno.readTextFileSync(join(ROOT, "docs/retrievers.md"));
const START = PAGE.indexOf("## Engines and services as retrievers");
const END = PAGE.indexOf("\n## ", START + 5);
const SECTION = PAGE.slice(START, END < 0 ? undefined : END);
const BLOCKS = [...SECTION.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);

const SECRETS: Record<string, string> = {
  RERANK_API_KEY: "rk-secret-1234567",
  SEARCH_TOKEN: "st-secret-7654321",
  ES_PASSWORD: "es-secret-0987654",
  OS_PASSWORD: "os-secret-1122334",
};

interface Served {
  /** The address that replaces the example's. */
  url: string;
  /** The question each system is asked. */
  question: string;
  close(): Promise<void>;
  check?(): void;
}

type Retrievers = Record<string, { kind?: string; index?: string | null; search?: string }>;

Deno.test("docs/retrievers.md has a config example for each engine kind", () => {
  const kinds = BLOCKS.flatMap((b) =>
    Object.values((parse(b) as { retrievers: Retrievers }).retrievers).map((r) => r.kind)
  );
  for (const kind of ["rerank", "http", "postgres", "opensearch", "elasticsearch"]) {
    assert.ok(kinds.includes(kind), `no example of ${kind} in docs/retrievers.md`);
  }
});

for (const [index, block] of BLOCKS.entries()) {
  const retrievers = (parse(block) as { retrievers: Retrievers }).retrievers;
  const kinds = Object.values(retrievers).map((r) => r.kind ?? "bm25");
  const needsPostgres = kinds.includes("postgres");
  Deno.test({
    name: `docs/retrievers.md engine example ${index + 1} (${kinds.join(", ")}) runs`,
    ignore: needsPostgres && findPostgresBin() === null,
    async fn() {
      const pgs: PgTestServer[] = [];
      const served = await serve(retrievers, async () => {
        pgs.push(await startPostgres());
        return pgs[0];
      });
      const pg: PgTestServer | undefined = pgs[0];
      const saved = new Map(Object.keys(SECRETS).map((k) => [k, Deno.env.get(k)]));
      try {
        for (const [k, v] of Object.entries(SECRETS)) Deno.env.set(k, v);
        if (pg) Deno.env.set("PG_URL", pg.tcpUrl);
        const text = block.replaceAll(/http:\/\/127\.0\.0\.1:\d+/g, served.url);
        await using t = await tempTree({
          "corpus.json": JSON.stringify(ENGINE_DOCS),
          "questions.yaml": `- {id: q1, question: "${served.question}", evidence: [wing2]}\n`,
          "a.yaml": `name: example\ncorpus: corpus.json\nquestions: questions.yaml\n` +
            `evaluation: {retrieval_k: [3]}\n${text}systems:\n` +
            Object.keys(retrievers).map((name) =>
              `  - {type: retrieval_only, name: sys_${name}, retriever: ${name}}\n`
            ).join(""),
        });
        const out = join(t.dir, "run");
        const result = await runCli([
          "run",
          t.path("a.yaml"),
          "--out",
          out,
          "--cache-dir",
          join(t.dir, "cache"),
          "--quiet",
        ]);
        served.check?.();
        assert.equal(result.code, 0, result.stderr);
        const lines = Deno.readTextFileSync(join(out, "per_question_results.jsonl")).trim()
          .split("\n").map((l) => JSON.parse(l));
        assert.equal(lines.length, Object.keys(retrievers).length);
        for (const line of lines) {
          assert.equal(line.error, null, JSON.stringify(line.error));
          const step = line.steps[0];
          assert.equal(step.type, "retrieval");
          assert.equal(step.error, null);
          assert.ok(step.results.length > 0, `${line.system} found nothing`);
        }
        const folder = [...Deno.readDirSync(out)].map((e) =>
          e.isFile ? Deno.readTextFileSync(join(out, e.name)) : ""
        ).join("\n");
        for (const [name, value] of Object.entries(SECRETS)) {
          assert.ok(!folder.includes(value), `${name}'s value reached the run folder`);
        }
        if (pg) assert.ok(!folder.includes(pg.tcpUrl.split(":")[2].split("@")[0]));
      } finally {
        for (const [k, v] of saved) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
        Deno.env.delete("PG_URL");
        await served.close();
        for (const server of pgs) await server.stop();
      }
    },
  });
}

/** Starts what the block's retrievers call. */
async function serve(
  retrievers: Retrievers,
  postgres: () => Promise<PgTestServer>,
): Promise<Served> {
  const all = Object.values(retrievers);
  const kinds = all.map((r) => r.kind);
  if (kinds.includes("rerank")) {
    const server = rerankServer("jina", { value: "ok" });
    return {
      url: server.url,
      question: "swept wings stall",
      close: () => server.close(),
      check: () => {
        assert.equal(server.received[0].headers.authorization, `Bearer ${SECRETS.RERANK_API_KEY}`);
      },
    };
  }
  if (kinds.includes("http")) {
    const server: Loopback = loopback(() =>
      json({ hits: [{ doc_id: "wing2", score: 3, text: "Swept wings stall." }] })
    );
    return {
      url: server.url,
      question: "swept wings stall",
      close: () => server.close(),
      check: () => {
        assert.equal(server.received[0].headers.authorization, `Bearer ${SECRETS.SEARCH_TOKEN}`);
        assert.deepEqual(JSON.parse(server.received[0].body), {
          query: "swept wings stall",
          top_k: 3,
        });
      },
    };
  }
  if (kinds.includes("postgres")) {
    const pg = await postgres();
    if (all.some((r) => r.kind === "postgres" && "table" in r && r.table)) {
      await pg.psql(
        "CREATE TABLE public.articles (slug text, title text, body text);" +
          "INSERT INTO articles VALUES ('wing2', 'More wings', 'Swept wings stall at the tip.')," +
          "('heat', 'Heat', 'Heat transfer.');",
      );
    }
    return { url: "http://unused", question: "swept wings stall", close: () => Promise.resolve() };
  }
  const engine = all[0];
  const scenario = engine.index
    ? "existing_index"
    : engine.search === "knn"
    ? "knn"
    : "own_index_bm25";
  const server = replayServer(await readTranscript(engine.kind!, scenario));
  return {
    url: server.url,
    question: scenario === "own_index_bm25" ? "swept wings stall" : "swept wings",
    close: () => server.close(),
    check: () => {
      assert.deepEqual(server.unmatched, []);
      assert.deepEqual(server.unused(), []);
    },
  };
}
