/**
 * The quality floor of ragbench's BM25 (issue 7, item 9; raised by issue 23,
 * item 1), checked end to end: a `retrieval_only` run over the Cranfield
 * collection (BEIR format, from the shared data folder) with the default
 * BM25 settings (whole-document ranking, abbreviations kept, single letters
 * dropped, repeated query words counted once) must reach nDCG@10 >= 0.378,
 * MAP >= 0.319 and R@100 >= 0.748, computed by ragbench's own metric code
 * (equal to trec_eval's). The best peer engines' figures measured with
 * trec_eval are 0.373, 0.310 and 0.747 (bm25s / rank_bm25 with a Snowball
 * stemmer); the previous default gave 0.374, 0.314 and 0.751.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../../support/cli.ts";
import { CRANFIELD } from "../../support/shared_data.ts";
import { tempTree } from "../../support/temp.ts";

Deno.test("BM25 with default settings is above the best peers on Cranfield (nDCG@10 >= 0.378, MAP >= 0.319, R@100 >= 0.748)", async () => {
  await using t = await tempTree({
    "cranfield.yaml": `name: cranfield_bm25
corpus: {beir: ${CRANFIELD}}
questions: {beir: ${CRANFIELD}, split: test}
evaluation: {concurrency: 2, retrieval_k: [10, 100]}
retrievers:
  deep: {top_k: 1000}
systems:
  - {type: retrieval_only, name: bm25, retriever: deep}
`,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("cranfield.yaml"), "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const [header, row] = Deno.readTextFileSync(join(out, "metrics_summary.csv")).trim().split("\n")
    .map((l) => l.split(","));
  const value = (name: string) => Number(row[header.indexOf(name)]);
  assert.equal(value("questions"), 225);
  assert.equal(value("errors"), 0);
  assert.ok(value("ndcg@10") >= 0.378, `nDCG@10 ${value("ndcg@10")}`);
  assert.ok(value("map") >= 0.319, `MAP ${value("map")}`);
  assert.ok(value("recall@100") >= 0.748, `R@100 ${value("recall@100")}`);
});
