import assert from "node:assert/strict";
import { join } from "node:path";
import { parseTrecRun } from "../../lib/data/trec_run.ts";
import { questionMetrics, trecOrder } from "../../lib/score/ir_metrics.ts";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";
import { CRANFIELD } from "../support/shared_data.ts";

const CONFIG = `name: cranfield
corpus: {beir: ${CRANFIELD}}
questions: {beir: ${CRANFIELD}, split: test}
evaluation: {concurrency: 2, retrieval_k: [1, 10]}
systems:
  - {type: closed_book, name: closed_book}
  - {type: agent_search, name: agent_search, tools: []}
`;

Deno.test("run --mock over a BEIR folder: retrieval columns, per-question metrics and TREC files that reproduce them", async () => {
  await using t = await tempTree({ "cranfield.yaml": CONFIG });
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    t.path("cranfield.yaml"),
    "--mock",
    "--out",
    out,
    "--limit",
    "12",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /warning: corpus ".*cranfield\/?": 2 of 1400 documents are empty \(no title, no text\); kept/,
  );
  const csv = Deno.readTextFileSync(join(out, "metrics_summary.csv")).trim().split("\n");
  const header = csv[0].split(",");
  assert.deepEqual(header.slice(-11), [
    "map",
    "recall@1",
    "recall@10",
    "precision@1",
    "precision@10",
    "mrr@1",
    "mrr@10",
    "ndcg@1",
    "ndcg@10",
    "hit_rate@1",
    "hit_rate@10",
  ]);
  const row = (name: string) => {
    const cells = csv.find((l) => l.startsWith(`${name},`))!.split(",");
    return Object.fromEntries(header.map((h, i) => [h, cells[i]]));
  };
  // A system that cannot retrieve has empty retrieval cells; no answer checks: empty answer cells.
  assert.equal(row("closed_book")["ndcg@10"], "");
  assert.equal(row("closed_book").answer_score, "");
  assert.equal(row("closed_book").checked, "0");
  assert.ok(Number(row("agent_search")["ndcg@10"]) > 0.1, row("agent_search")["ndcg@10"]);

  const lines = (await readJsonl(join(out, "per_question_results.jsonl"))) as QuestionResult[];
  const agent = lines.filter((l) => l.system === "agent_search");
  assert.equal(agent.length, 12);
  assert.ok(agent.every((l) => l.passed === null && l.answer_score === null));
  assert.ok(agent.every((l) => l.retrieval.retrieved && l.retrieval.metrics !== null));
  const mean = (key: string) =>
    agent.reduce((s, l) => s + l.retrieval.metrics![key], 0) / agent.length;
  assert.equal(Number(row("agent_search")["ndcg@10"]), Number(mean("ndcg@10").toFixed(6)));

  const names = [...Deno.readDirSync(join(out, "trec"))].map((e) => e.name).sort();
  assert.deepEqual(names, ["agent_search.run", "qrels.txt"]);
  const qrels = Deno.readTextFileSync(join(out, "trec/qrels.txt"));
  assert.match(qrels, /^1 0 29 3\n1 0 31 3\n/);
  // Reading the run file back, ordering it as trec_eval does, and scoring it gives the
  // per-question metrics of the JSONL (trec_eval agreement itself: ir_metrics_test.ts).
  const run = parseTrecRun(Deno.readTextFileSync(join(out, "trec/agent_search.run")), "run");
  for (const line of agent) {
    const docs = trecOrder(run.get(line.question_id) ?? []).map((d) => d.doc_id);
    assert.deepEqual(docs, line.retrieval.ranking);
    const judged = new Map<string, number>();
    for (const l of qrels.split("\n")) {
      const [qid, , doc, grade] = l.split(" ");
      if (qid === line.question_id) judged.set(doc, Number(grade));
    }
    assert.deepEqual(questionMetrics(docs, judged, [1, 10]), line.retrieval.metrics);
  }
});
