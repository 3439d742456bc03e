import assert from "node:assert/strict";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

Deno.test("run --mock replaces openai embedders by hashing with one progress line, and makes no cache", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
mock_script: ${ROOT}arenas/rag/mock.yaml
retrievers:
  small: {kind: vector, embedding: {model: text-embedding-3-small, base_url: "http://127.0.0.1:9/v1"}}
  large: {kind: hybrid, embedding: {model: text-embedding-3-large, dimensions: 256}}
systems:
  - {type: rag, name: a, retriever: small}
  - {type: retrieval_only, name: b, retriever: large}
  - {type: agent_search, name: c, retriever: large, tools: []}
`,
  });
  const cache = t.path("cache");
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--out",
    t.path("run"),
    "--cache-dir",
    cache,
    "--limit",
    "3",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stderr.split("\n");
  assert.deepEqual(lines.filter((l) => l.startsWith("--mock:")), [
    "--mock: openai embedders are replaced by the offline hashing embedder (same dimensions, or 384); no embedding requests are made",
  ]);
  assert.ok(
    lines.some((l) => /^retriever small: \d+ passages embedded with hashing:v1:384 /.test(l)),
  );
  assert.ok(
    lines.some((l) => /^retriever large: \d+ passages embedded with hashing:v1:256 /.test(l)),
  );
  assert.equal(await Deno.stat(cache).then(() => true, () => false), false);
  const results = Deno.readTextFileSync(t.path("run/per_question_results.jsonl")).trim().split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(results.length, 9);
  for (const r of results) assert.equal(r.error, null, JSON.stringify(r.error));
  // Each embedding build is recorded in run.json and in summary.md; `report` finds them again.
  const manifest = JSON.parse(Deno.readTextFileSync(t.path("run/run.json")));
  const passages = manifest.sessions[0].indexing[0].passages;
  assert.ok(passages > 0);
  assert.deepEqual(manifest.sessions[0].indexing, [
    { retriever: "small", passages, embedder: "hashing:v1:384", tokens: 0, cost_usd: 0, cached: 0 },
    { retriever: "large", passages, embedder: "hashing:v1:256", tokens: 0, cost_usd: 0, cached: 0 },
  ]);
  const section = (md: string) => md.slice(md.indexOf("## Building the indexes"));
  const summary = Deno.readTextFileSync(t.path("run/summary.md"));
  assert.match(section(summary), /\| large \| hashing:v1:256 \| \d+ \| 0 \| 0 \| \$0\.0000 \|/);
  assert.match(Deno.readTextFileSync(t.path("run/report.html")), /<section id="indexing">/);
  Deno.removeSync(t.path("run/summary.md"));
  assert.equal((await runCli(["report", t.path("run")])).code, 0);
  assert.equal(section(Deno.readTextFileSync(t.path("run/summary.md"))), section(summary));
});
