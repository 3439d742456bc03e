/**
 * `ragbench run` and `ragbench permissions` with retrievers that call an
 * engine or a service: what a reranker buys in the retrieval columns,
 * per-question errors (never a crash) naming the retriever and the host,
 * secrets kept out of the run folder, and the permissions of each kind,
 * down to a PostgreSQL Unix socket reached with exactly the flags
 * `ragbench permissions` prints.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { execCli, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";
import { json, loopback } from "../support/loopback_server.ts";
import { rerankServer } from "../support/rerank_server.ts";
import { findPostgresBin, startPostgres } from "../support/postgres_server.ts";

const TOKEN = "tok-secret-5551234";

/** Eight documents: BM25 ranks "many" above "all" for the query, word overlap the reverse. */
const CORPUS = [
  { id: "all", title: "", text: "zeta omega kappa" },
  { id: "many", title: "", text: "zeta zeta zeta zeta zeta zeta" },
  ...[1, 2, 3, 4, 5, 6].map((i) => ({ id: `f${i}`, title: "", text: `omega kappa filler${i}` })),
];

function readLines(dir: string) {
  return Deno.readTextFileSync(join(dir, "per_question_results.jsonl")).trim().split("\n")
    .map((l) => JSON.parse(l));
}

Deno.test("a reranker's gain shows in the retrieval columns", async () => {
  await using server = rerankServer("cohere", { value: "ok" });
  await using t = await tempTree({
    "corpus.json": JSON.stringify(CORPUS),
    "questions.yaml": "- {id: q1, question: zeta omega kappa, evidence: [all]}\n",
    "a.yaml": `name: rerank
corpus: corpus.json
questions: questions.yaml
evaluation: {retrieval_k: [10]}
retrievers:
  bm25: {kind: bm25}
  reranked: {kind: rerank, base: bm25, top_n: 5, model: m, base_url: ${server.url}/v1, price_per_search_unit: 0.002}
systems:
  - {type: retrieval_only, name: plain, retriever: bm25}
  - {type: retrieval_only, name: reranked, retriever: reranked}
`,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("a.yaml"), "--out", out, "--cache", "off"]);
  assert.equal(result.code, 0, result.stderr);
  const [header, ...rows] = Deno.readTextFileSync(join(out, "metrics_summary.csv")).trim()
    .split("\n").map((l) => l.split(","));
  const ndcg = header.indexOf("ndcg@10");
  const bySystem = new Map(rows.map((r) => [r[0], Number(r[ndcg])]));
  // "all" is second under BM25 (1 / log2(3)) and first once reranked.
  assert.equal(bySystem.get("plain")!.toFixed(4), (1 / Math.log2(3)).toFixed(4));
  assert.equal(bySystem.get("reranked"), 1);
  const line = readLines(out).find((l) => l.system === "reranked");
  assert.equal(line.steps[0].cost_usd, 0.002);
  assert.deepEqual(line.steps[0].results.map((r: { doc_id: string }) => r.doc_id).slice(0, 2), [
    "all",
    "f1",
  ]);
});

Deno.test("an engine that fails gives each question an error naming the retriever and host", async () => {
  // One failure a question, by the query's first word; the 500 echoes the token, which is masked.
  await using service = loopback((req) => {
    const query = (JSON.parse(req.body) as { query: string }).query;
    if (query.startsWith("five")) {
      return json({ error: `boom for ${req.headers.authorization}` }, 500);
    }
    if (query.startsWith("unknown")) return json({ hits: [{ doc_id: "nope", score: 1 }] });
    if (query.startsWith("broken")) return new Response("<html>", { status: 200 });
    return json({ hits: [{ doc_id: "all", score: 1 }] });
  });
  await using reranker = rerankServer("jina", { value: "fewer" });
  await using t = await tempTree({
    "corpus.json": JSON.stringify(CORPUS),
    "questions.yaml": [
      "- {id: q500, question: five hundred zeta, evidence: [all]}",
      "- {id: qid, question: unknown ids zeta, evidence: [all]}",
      "- {id: qjson, question: broken json zeta, evidence: [all]}",
      "- {id: qok, question: fine zeta, evidence: [all]}",
    ].join("\n") + "\n",
    "a.yaml": `name: failing
corpus: corpus.json
questions: questions.yaml
evaluation: {retrieval_k: [10], concurrency: 1}
retrievers:
  service:
    kind: http
    url: ${service.url}/search
    headers: {Authorization: "Bearer \${ENGINE_TEST_TOKEN}"}
    results: $.hits
    id: $.doc_id
    text: null
    max_retries: 0
  reranked: {kind: rerank, base: bm25, model: m, base_url: ${reranker.url}/v1, max_retries: 0}
systems:
  - {type: retrieval_only, name: service, retriever: service}
  - {type: retrieval_only, name: reranked, retriever: reranked}
`,
  });
  Deno.env.set("ENGINE_TEST_TOKEN", TOKEN);
  try {
    const out = join(t.dir, "run");
    const result = await runCli(["run", t.path("a.yaml"), "--out", out, "--cache", "off"]);
    // The run finishes; it exits 1 because every question of one system errored.
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^warning: 3 of 4 questions of service errored$/m);
    assert.match(result.stderr, /^failed: every question of reranked errored/m);
    const lines = readLines(out);
    const error = (system: string, question: string) =>
      lines.find((l) => l.system === system && l.question_id === question)?.error?.message ?? "";
    const site = `Retriever "service" (http) at ${service.url}/search: `;
    assert.equal(error("service", "qok"), "");
    assert.ok(error("service", "q500").includes(`${site}answered HTTP 500: `));
    assert.match(error("service", "q500"), /Bearer \[secret\]/);
    assert.ok(error("service", "qid").includes(`${site}returned document id "nope" (result 1)`));
    assert.ok(error("service", "qjson").includes(`${site}sent a reply that is not JSON`));
    for (const q of ["q500", "qid", "qjson", "qok"]) {
      assert.match(
        error("reranked", q),
        /Retriever "reranked" \(rerank\) at http:\/\/127\.0\.0\.1:\d+\/v1\/rerank: sent an unusable rerank reply: \d+ scores for \d+ documents/,
      );
    }
    const folder = [...Deno.readDirSync(out)].filter((e) => e.isFile)
      .map((e) => Deno.readTextFileSync(join(out, e.name))).join("\n");
    assert.ok(!folder.includes(TOKEN), "the token reached the run folder");
    assert.match(
      Deno.readTextFileSync(join(out, "config.resolved.yaml")),
      /\$\{ENGINE_TEST_TOKEN\}/,
    );
  } finally {
    Deno.env.delete("ENGINE_TEST_TOKEN");
  }
});

Deno.test("ragbench permissions lists each engine's host, socket, variables and sys", async () => {
  await using t = await tempTree({
    "corpus.json": JSON.stringify(CORPUS),
    "questions.yaml": "- {id: q1, question: zeta}\n",
    "a.yaml": `name: perms
corpus: corpus.json
questions: questions.yaml
retrievers:
  bm25: {kind: bm25}
  reranked: {kind: rerank, base: bm25, model: m, base_url: "https://rerank.example:8443/v1", api_key_env: RR_KEY}
  service: {kind: http, url: "http://search.example/x", headers: {X-Token: "\${SVC_TOKEN}"}}
  socket: {kind: postgres, connection: "postgresql://reader@/wiki?host=/run/pg&port=5433"}
  hidden: {kind: postgres, connection: "\${PERMS_PG_URL}"}
  secret: {kind: postgres, connection: "postgresql://reader:\${PERMS_PG_PW}@pg.example:5544/docs"}
  es: {kind: elasticsearch, url: "http://es.example:9200", username: elastic, password: "\${ES_PW}"}
systems:
  - {type: retrieval_only, name: a, retriever: reranked}
  - {type: retrieval_only, name: b, retriever: service}
  - {type: retrieval_only, name: c, retriever: socket}
  - {type: retrieval_only, name: d, retriever: hidden}
  - {type: retrieval_only, name: e, retriever: es}
  - {type: retrieval_only, name: f, retriever: secret}
`,
  });
  Deno.env.delete("PERMS_PG_URL");
  const hidden = await runCli(["permissions", t.path("a.yaml"), "--cache", "off"]);
  assert.equal(hidden.code, 0, hidden.stderr);
  const flags = hidden.stdout.split("\n")[1];
  // A password's variable, unreadable here, hides no host: the host is named.
  assert.match(
    hidden.stdout,
    /--allow-net=pg\.example:5544 +retriever secret \(postgres\)\n/,
  );
  assert.match(
    hidden.stdout,
    /--allow-env=PERMS_PG_PW +\$\{PERMS_PG_PW\} in the connection of retriever secret \(postgres\)/,
  );
  // The hidden host cannot be named: the whole network, saying why.
  assert.match(flags, / --allow-net( |$)/);
  assert.match(
    hidden.stdout,
    /--allow-net +retriever hidden \(postgres\): its host is in \$\{PERMS_PG_URL\}, which this process may not read \(run ragbench permissions with --allow-env=PERMS_PG_URL/,
  );
  Deno.env.set("PERMS_PG_URL", "postgresql://u:pw-123456@db.example:6543/x");
  try {
    const named = await runCli(["permissions", t.path("a.yaml"), "--cache", "off"]);
    const line = named.stdout.split("\n")[1];
    assert.match(
      line,
      /--allow-read=[^ ]*\/run\/pg\/\.s\.PGSQL\.5433/,
    );
    assert.match(line, /--allow-write=[^ ]*\/run\/pg\/\.s\.PGSQL\.5433/);
    assert.match(line, /--allow-env=[^ ]*RR_KEY/);
    for (const v of ["SVC_TOKEN", "PERMS_PG_URL", "ES_PW"]) assert.match(line, new RegExp(v));
    const net = / --allow-net=([^ ]+)/.exec(line)![1].split(",");
    assert.deepEqual(net.sort(), [
      "db.example:6543",
      "es.example:9200",
      "pg.example:5544",
      "rerank.example:8443",
      "search.example:80",
      "unix:/run/pg/.s.PGSQL.5433",
    ]);
    assert.match(line, / --allow-sys=osRelease/);
    assert.ok(!named.stdout.includes("pw-123456"));
    // --mock: a reranker sends nothing, so neither its host nor its key is needed.
    const mock = await runCli(["permissions", t.path("a.yaml"), "--mock"]);
    assert.doesNotMatch(mock.stdout.split("\n")[1], /rerank\.example|RR_KEY/);
  } finally {
    Deno.env.delete("PERMS_PG_URL");
  }
});

Deno.test({
  name:
    "a postgres retriever over a Unix socket runs with exactly the flags ragbench permissions prints",
  ignore: findPostgresBin() === null,
  async fn() {
    await using pg = await startPostgres();
    await using t = await tempTree({
      "corpus.json": JSON.stringify(CORPUS),
      "questions.yaml": "- {id: q1, question: zeta omega kappa, evidence: [all]}\n",
      "a.yaml": `name: socket
corpus: corpus.json
questions: questions.yaml
evaluation: {retrieval_k: [10]}
retrievers:
  pg: {kind: postgres, connection: "${pg.socketUrl}"}
systems:
  - {type: retrieval_only, name: pg, retriever: pg}
`,
    });
    const out = join(t.dir, "run");
    const printed = await runCli(["permissions", t.path("a.yaml"), "--out", out, "--cache", "off"]);
    assert.equal(printed.code, 0, printed.stderr);
    const flags = printed.stdout.split("\n")[1].split(" ").filter((f) => f.startsWith("--allow"));
    assert.ok(flags.some((f) => f === `--allow-net=unix:${pg.socket}`), flags.join(" "));
    const argv = ["run", t.path("a.yaml"), "--out", out, "--cache", "off"];
    // Paths are printed relative to the folder permissions ran in (the repository, as here).
    const ran = await execCli(flags, argv);
    assert.equal(ran.code, 0, ran.stderr);
    const [line] = readLines(out);
    assert.equal(line.error, null);
    const found = line.steps[0].results.map((r: { doc_id: string }) => r.doc_id);
    assert.ok(found.includes("all") && found.includes("many"), found.join(" "));
    // Without the socket's flags the run stops before any question, naming them.
    const without = flags.filter((f) => !f.startsWith("--allow-net"));
    const refused = await execCli(without, [
      ...argv.slice(0, 3),
      join(t.dir, "run2"),
      ...argv.slice(4),
    ]);
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      new RegExp(`--allow-net=unix:${pg.socket.replaceAll(".", "\\.")}`),
    );
  },
});
