/**
 * `ragbench run` with engines that hang (a service that never finishes its
 * reply, a PostgreSQL server that never answers a statement): the run is
 * bounded by each retriever's `timeout_s`, every question gets an error
 * naming the retriever and the host, and Ctrl-C quits a run whose question
 * waits on such an engine. The engines are loopback servers that stall on
 * purpose (tests/support/stalling_server.ts).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli, spawnCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";
import { stallingServer } from "../support/stalling_server.ts";
import { killAll } from "../support/processes.ts";
import { settledWithin, waitUntil } from "../support/wait.ts";

const CORPUS = [
  { id: "all", title: "", text: "zeta omega kappa" },
  { id: "many", title: "", text: "zeta zeta zeta" },
];

function readLines(dir: string) {
  return Deno.readTextFileSync(join(dir, "per_question_results.jsonl")).trim().split("\n")
    .map((l) => JSON.parse(l));
}

Deno.test("engines that stall part-way through a reply give each question a timeout error naming the retriever and host", async () => {
  await using server = stallingServer("mid_body");
  const limits = "timeout_s: 1, max_retries: 0";
  await using t = await tempTree({
    "corpus.json": JSON.stringify(CORPUS),
    "questions.yaml": "- {id: q1, question: zeta omega, evidence: [all]}\n",
    "a.yaml": `name: stalled
corpus: corpus.json
questions: questions.yaml
evaluation: {retrieval_k: [10]}
retrievers:
  service: {kind: http, url: ${server.url}/search, ${limits}}
  reranked: {kind: rerank, base: bm25, model: m, base_url: ${server.url}/v1, ${limits}}
  os: {kind: opensearch, url: ${server.url}, index: papers, ${limits}}
  es: {kind: elasticsearch, url: ${server.url}, index: papers, ${limits}}
systems:
  - {type: retrieval_only, name: service, retriever: service}
  - {type: retrieval_only, name: reranked, retriever: reranked}
  - {type: retrieval_only, name: os, retriever: os}
  - {type: retrieval_only, name: es, retriever: es}
`,
  });
  const out = join(t.dir, "run");
  const result = await settledWithin(
    runCli(["run", t.path("a.yaml"), "--out", out, "--cache", "off"]),
  );
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /^failed: every question of service errored/m);
  const error = (system: string) =>
    readLines(out).find((l) => l.system === system)?.error?.message ?? "";
  assert.ok(
    error("service").includes(
      `Retriever "service" (http) at ${server.url}/search: did not answer within 1 s. `,
    ),
    error("service"),
  );
  assert.ok(
    error("reranked").includes(
      `Retriever "reranked" (rerank) at ${server.url}/v1/rerank: did not answer within 1 s. `,
    ),
    error("reranked"),
  );
  for (const [system, kind] of [["os", "opensearch"], ["es", "elasticsearch"]]) {
    assert.ok(
      error(system).includes(
        `Retriever "${system}" (${kind}) at ${server.url}: did not answer within 1 s ` +
          "(its reply stopped part-way). ",
      ),
      error(system),
    );
  }
});

Deno.test("a PostgreSQL server that never answers stops the run with an error naming the retriever and server", async () => {
  await using server = stallingServer("pg_mid_query");
  await using t = await tempTree({
    "corpus.json": JSON.stringify(CORPUS),
    "questions.yaml": "- {id: q1, question: zeta omega, evidence: [all]}\n",
    "a.yaml": `name: stalled
corpus: corpus.json
questions: questions.yaml
retrievers:
  pg:
    kind: postgres
    connection: postgresql://reader@127.0.0.1:${server.port}/docs?sslmode=disable
    timeout_s: 1
systems:
  - {type: retrieval_only, name: pg, retriever: pg}
`,
  });
  const result = await settledWithin(
    runCli(["run", t.path("a.yaml"), "--out", join(t.dir, "run"), "--cache", "off"]),
  );
  assert.notEqual(result.code, 0);
  assert.ok(
    result.stderr.includes(
      `Retriever "pg" (postgres) at postgresql://reader@127.0.0.1:${server.port}/docs: ` +
        "did not answer a statement within 2 s",
    ),
    result.stderr,
  );
});

Deno.test("Ctrl-C twice quits a run whose question waits on a service that never finishes its reply", async () => {
  await using server = stallingServer("mid_body");
  await using t = await tempTree({
    "corpus.json": JSON.stringify(CORPUS),
    "questions.yaml": "- {id: q1, question: zeta omega, evidence: [all]}\n",
    "a.yaml": `name: stalled
corpus: corpus.json
questions: questions.yaml
retrievers:
  service: {kind: http, url: ${server.url}/search, timeout_s: 600, max_retries: 0}
systems:
  - {type: retrieval_only, name: service, retriever: service}
`,
  });
  const child = spawnCli(
    [
      `--allow-read=${ROOT}tools,${ROOT}lib,${t.dir}`,
      `--allow-write=${t.dir}`,
      `--allow-net=127.0.0.1:${server.port}`,
    ],
    ["run", t.path("a.yaml"), "--out", join(t.dir, "run"), "--cache", "off"],
  );
  try {
    assert.ok(await waitUntil(() => server.requests > 0), "the question reached the service");
    // The first Ctrl-C waits for the question in progress (here, up to its 600 s limit); the
    // second quits at once.
    child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 500));
    try {
      child.kill("SIGINT");
    } catch (error) {
      // Already gone (the first Ctrl-C may end the run by itself on a loaded machine).
      if (!(error instanceof TypeError)) throw error;
    }
    const status = await settledWithin(child.output());
    assert.equal(status.code, 130, new TextDecoder().decode(status.stderr));
    assert.match(new TextDecoder().decode(status.stderr), /Ctrl-C again: quitting at once/);
  } finally {
    killAll([child.pid]);
    await child.status;
  }
});
