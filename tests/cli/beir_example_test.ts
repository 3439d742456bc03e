import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/beir_example.yaml");

Deno.test("configs/beir_example.yaml --mock ranks Cranfield with bm25, vector and hybrid: every nDCG@10 filled", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  // The hashing embedder needs no substitution, so no --mock line about it.
  assert.doesNotMatch(result.stderr, /--mock: openai embedders/);
  const csv = Deno.readTextFileSync(join(out, "metrics_summary.csv")).trim().split("\n");
  const header = csv[0].split(",");
  const row = (name: string) => {
    const line = csv.find((l) => l.startsWith(`${name},`));
    assert.ok(line, `no row for ${name}`);
    const cells = line.split(",");
    return Object.fromEntries(header.map((h, i) => [h, cells[i]]));
  };
  const ndcg = new Map(["bm25", "vector", "hybrid"].map((name) => {
    const cell = row(name)["ndcg@10"];
    assert.match(cell, /^0\.\d+$/, `${name} ndcg@10 is "${cell}"`);
    assert.equal(row(name).questions, "225");
    assert.equal(row(name).answer_score, "", "retrieval_only has no answer checks");
    return [name, Number(cell)];
  }));
  // BM25 holds the Cranfield bar of cranfield_quality_test.ts; fusing BM25 in lifts hashing vectors.
  assert.ok(ndcg.get("bm25")! >= 0.373, `bm25 ${ndcg.get("bm25")}`);
  assert.ok(ndcg.get("hybrid")! > ndcg.get("vector")!, JSON.stringify([...ndcg]));
});

Deno.test("configs/beir_example.yaml --mock needs no network, environment or cache", async () => {
  const result = await runCli(["permissions", CONFIG, "--mock"]);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stdout.split("\n")[1], /--allow-net|--allow-env|cache/);
  assert.match(result.stdout, /datasets\/cranfield +the corpus$/m);
});
