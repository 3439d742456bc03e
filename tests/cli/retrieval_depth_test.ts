/**
 * A metric's depth is the metric's (issue 18, item 5), on Cranfield from the
 * shared data folder: `retrieval_only` with every default ranks as deep as
 * the largest cut-off, so its nDCG@10 and R@100 are the collection's figures
 * (0.374 and 0.751 at 1000 deep, README of the data set and
 * cranfield_quality_test.ts); a `top_k` below a cut-off is warned about and
 * its figures are marked.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, RetrievalStep } from "../../lib/types.ts";
import { runCli } from "../support/cli.ts";
import { CRANFIELD } from "../support/shared_data.ts";
import { tempTree } from "../support/temp.ts";

const DATA = `corpus: {beir: ${CRANFIELD}}
questions: {beir: ${CRANFIELD}, split: test}
`;

function csvRows(path: string): Map<string, Record<string, string>> {
  const [header, ...rows] = Deno.readTextFileSync(path).trim().split("\n").map((l) => l.split(","));
  return new Map(rows.map((r) => [r[0], Object.fromEntries(header.map((h, i) => [h, r[i]]))]));
}

Deno.test("retrieval_only with default settings ranks 100 documents deep: Cranfield nDCG@10 0.379 beside R@100 0.749, nothing marked", async () => {
  await using t = await tempTree({
    "c.yaml": `name: cranfield_defaults
${DATA}systems:
  - {type: retrieval_only, name: bm25}
`,
  });
  const out = join(t.dir, "run");
  const validate = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(validate.code, 0, validate.stderr);
  assert.ok(!validate.stderr.includes("top_k"), validate.stderr);
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const row = csvRows(join(out, "metrics_summary.csv")).get("bm25")!;
  assert.equal(row.questions, "225");
  assert.equal(Number(row["ndcg@10"]).toFixed(3), "0.379");
  assert.equal(Number(row["recall@100"]).toFixed(3), "0.749");
  assert.ok(Number(row.retrieval_depth) >= 100, row.retrieval_depth);
  // The console's headline is nDCG@10 beside R@100, unmarked.
  const [header, , line] = result.stdout.split("\n");
  assert.match(header, /nDCG@10 +R@100/);
  assert.match(line, /^bm25 .* 0\.379 +0\.749 /);
  assert.ok(!result.stdout.includes("*"), result.stdout);
  // Each question ranked at least 100 documents (passages asked for until it had them).
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  for (const l of lines) {
    const step = l.steps[0] as RetrievalStep;
    assert.ok(l.retrieval.ranking.length >= 100 || step.results.length < step.k!, l.question_id);
  }
});

Deno.test("a top_k below a reported cut-off: validate warns, the CSV gives the depth and the console marks the figures", async () => {
  await using t = await tempTree({
    "c.yaml": `name: cranfield_shallow
${DATA}retrievers:
  five: {top_k: 5}
systems:
  - {type: retrieval_only, name: shallow, retriever: five}
  - {type: retrieval_only, name: deep}
`,
  });
  const warning =
    "top_k 5 of shallow is below the cut-offs 10 and 100 of evaluation.retrieval_k: " +
    "its metrics at those cut-offs rank at most 5 results, and the reports mark them (* on the " +
    "console, retrieval_depth in metrics_summary.csv). Set top_k to at least 100 (retrieval_only " +
    "ranks that deep when top_k is not set), or list smaller cut-offs in evaluation.retrieval_k";
  const validate = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(validate.code, 0, validate.stderr);
  assert.ok(validate.stderr.includes(`warning: ${warning}`), validate.stderr);
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stderr.includes(`warning: ${warning}`), result.stderr);
  const rows = csvRows(join(out, "metrics_summary.csv"));
  const shallow = rows.get("shallow")!;
  // nDCG@10 from five whole documents (the issue found 0.307 instead of 0.374 from five
  // passages, before BM25 ranked whole documents for retrieval_only).
  assert.equal(Number(shallow["ndcg@10"]).toFixed(3), "0.321");
  // The fewest documents a ranking held: at most the five asked for.
  const depth = Number(shallow.retrieval_depth);
  assert.ok(depth >= 1 && depth <= 5, shallow.retrieval_depth);
  assert.equal(Number(rows.get("deep")!["ndcg@10"]).toFixed(3), "0.379");
  const lineOf = (name: string) => result.stdout.split("\n").find((l) => l.startsWith(`${name} `))!;
  assert.match(lineOf("shallow"), / 0\.321\* +0\.\d{3}\* /);
  assert.match(lineOf("deep"), / 0\.379 +0\.749 /);
  assert.ok(
    result.stdout.includes(
      `* shallow: a ranking held only ${depth} documents (the retriever's top_k passages came from no more), so metrics at larger cut-offs count fewer documents than they name`,
    ),
    result.stdout,
  );
});
