import assert from "node:assert/strict";
import { join } from "node:path";
import { loadBeirQuestions } from "../../../lib/data/beir.ts";
import type { Question } from "../../../lib/data/question_schema.ts";
import { parseTrecRun } from "../../../lib/data/trec_run.ts";
import {
  averagePrecision,
  compareIds,
  ndcgAt,
  precisionAt,
  reciprocalRank,
  trecOrder,
} from "../../../lib/score/ir_metrics.ts";
import { retrievalScores } from "../../../lib/score/retrieval.ts";
import type { RankedDoc } from "../../../lib/types.ts";
import { trecRunText } from "../../../lib/report/trec_run.ts";
import type { QuestionResult, RetrievalStep } from "../../../lib/types.ts";
import { CRANFIELD } from "../../support/shared_data.ts";

/** The Cranfield collection and trec_eval's reference output, read from /work/shared (never copied). */
const REFERENCE = join(CRANFIELD, "reference");

/** trec_eval's measure name → ragbench's per-question metric key (reciprocal rank is separate). */
function ragbenchKey(measure: string): string {
  if (measure === "map") return "map";
  if (measure === "recip_rank_at_10") return "mrr@10";
  const m = /^(ndcg_cut|recall|P)_(\d+)$/.exec(measure);
  if (!m) throw new Error(`unmapped measure ${measure}`);
  const name = m[1] === "ndcg_cut" ? "ndcg" : m[1] === "recall" ? "recall" : "precision";
  return `${name}@${m[2]}`;
}

/**
 * Whether trec_eval's printed value (`%.4f`) is `ours` rounded to 4 decimals. A value on a
 * rounding boundary (0.00625) may print either way, since trec_eval's double and ours can
 * differ in the last bit (different summation order): so within half a unit of the 4th
 * decimal, plus float noise.
 */
function agreesTo4Decimals(ours: number, printed: string): boolean {
  return Math.abs(ours - Number(printed)) <= 0.00005 + 1e-12;
}

/** `measure qid value` lines of `trec_eval -q` output. */
function readReference(file: string): Array<{ measure: string; qid: string; value: string }> {
  return Deno.readTextFileSync(join(REFERENCE, file)).split("\n").filter((l) => l.trim())
    .map((l) => {
      const [measure, qid, value] = l.trim().split(/\s+/);
      return { measure, qid, value };
    });
}

/** One retrieval step holding a run's documents for a query, as `retrieval_only` records it. */
function stepOf(docs: readonly RankedDoc[]): RetrievalStep {
  return {
    type: "retrieval",
    retriever: "reference",
    query: "",
    results: docs.map((d) => ({ passage_id: `${d.doc_id}#0`, doc_id: d.doc_id, score: d.score })),
    latency_ms: 0,
    embedding_tokens: 0,
    cost_usd: 0,
    error: null,
  };
}

let cranfieldQuestions: Question[] | undefined;
async function questions(): Promise<Map<string, Question>> {
  cranfieldQuestions ??= (await loadBeirQuestions(CRANFIELD, "test", {})).questions;
  return new Map(cranfieldQuestions.map((q) => [q.id, q]));
}

/** ragbench's per-query values for a run file against the Cranfield qrels. */
async function scoreRun(runFile: string, cutoffs: number[]) {
  const run = parseTrecRun(Deno.readTextFileSync(join(REFERENCE, runFile)), runFile);
  const qs = await questions();
  const scored = new Map<string, ReturnType<typeof retrievalScores>>();
  for (const [qid, q] of qs) {
    const docs = run.get(qid);
    scored.set(qid, retrievalScores(docs ? [stepOf(docs)] : [], q.evidence, cutoffs));
  }
  return scored;
}

function compareWithReference(
  scored: Map<string, ReturnType<typeof retrievalScores>>,
  reference: ReturnType<typeof readReference>,
): number {
  let compared = 0;
  const mismatches: string[] = [];
  for (const { measure, qid, value } of reference) {
    let ours: number;
    if (qid === "all") {
      const values = [...scored.values()].map((s) =>
        measure === "recip_rank" ? s.mrr! : s.metrics![ragbenchKey(measure)]
      );
      ours = values.reduce((a, b) => a + b, 0) / values.length;
    } else {
      const s = scored.get(qid);
      assert.ok(s, `query ${qid} of the reference is not a Cranfield question`);
      ours = measure === "recip_rank" ? s.mrr! : s.metrics![ragbenchKey(measure)];
    }
    if (!agreesTo4Decimals(ours, value)) mismatches.push(`${measure} ${qid}: ${ours} vs ${value}`);
    compared++;
  }
  assert.deepEqual(mismatches, []);
  return compared;
}

Deno.test("metrics equal trec_eval's per-query output on the real Cranfield BM25 run, every query and measure", async () => {
  const reference = readReference("trec_eval.per_query.txt");
  const scored = await scoreRun("bm25s_snowball.top100.run", [1, 5, 10, 100]);
  const compared = compareWithReference(scored, reference);
  // 14 measures × (225 queries + "all").
  assert.equal(compared, 14 * 226);
  assert.equal(scored.size, 225);
});

Deno.test("tied scores are ordered as trec_eval orders them: document id descending, as strings", async () => {
  const reference = readReference("ties.trec_eval.txt");
  const scored = await scoreRun("ties.run", [1, 5, 10]);
  const onlyTies = new Map([...scored].filter(([qid]) => ["1", "2", "3"].includes(qid)));
  assert.equal(compareWithReference(onlyTies, reference.filter((r) => r.qid !== "all")), 24);
  assert.deepEqual(onlyTies.get("1")!.ranking, ["51", "29", "184", "31", "12"]);
  assert.deepEqual(onlyTies.get("2")!.ranking, ["999", "12", "1000", "100"]);
  assert.deepEqual(onlyTies.get("3")!.ranking, ["500", "50", "5"]);
});

Deno.test("a TREC run file written by ragbench reads back in the order ragbench scored", async () => {
  const scored = await scoreRun("ties.run", [10]);
  const lines = ["1", "2", "3"].map((qid) => ({
    question_id: qid,
    retrieval: scored.get(qid)!,
  })) as unknown as QuestionResult[];
  const { text, skipped } = trecRunText("sys", lines);
  assert.equal(skipped, 0);
  assert.match(text, /^1 Q0 51 1 5 sys\n1 Q0 29 2 5 sys\n/);
  const reread = parseTrecRun(text, "sys.run");
  for (const qid of ["1", "2", "3"]) {
    assert.deepEqual(
      trecOrder(reread.get(qid)!).map((d) => d.doc_id),
      scored.get(qid)!.ranking,
    );
  }
});

Deno.test("the reference comparison accepts exactly the 4-decimal roundings", () => {
  assert.ok(agreesTo4Decimals(0.03125, "0.0312"));
  assert.ok(agreesTo4Decimals(0.03125, "0.0313"));
  assert.ok(!agreesTo4Decimals(0.03126, "0.0312"));
  assert.ok(!agreesTo4Decimals(1 / 3, "0.3334"));
  assert.ok(agreesTo4Decimals(1 / 3, "0.3333"));
});

Deno.test("ranking order: scores descending, ties by id descending in code point order", () => {
  const docs = [
    { doc_id: "a", score: 1 },
    { doc_id: "b", score: 2 },
    { doc_id: "\u{1F600}", score: 1 },
    { doc_id: "\uFFFF", score: 1 },
  ];
  // U+1F600 is above U+FFFF in UTF-8 byte order (strcmp), though its first UTF-16 unit is lower.
  assert.deepEqual(trecOrder(docs).map((d) => d.doc_id), ["b", "\u{1F600}", "\uFFFF", "a"]);
  assert.ok(compareIds("12", "999") < 0);
  assert.ok(compareIds("1000", "12") < 0);
  assert.equal(compareIds("x", "x"), 0);
});

Deno.test("hand-computed example: AP, nDCG with graded gains, precision over k, reciprocal rank", () => {
  const judged = new Map([["d1", 3], ["d2", 1], ["d9", 2]]);
  const ranking = ["d2", "x", "d1"];
  // AP = (1/1 + 2/3) / 3 relevant.
  assert.equal(averagePrecision(ranking, judged), (1 + 2 / 3) / 3);
  // DCG@3 = 1/log2(2) + 3/log2(4) = 2.5; IDCG@3 = 3 + 2/log2(3) + 1/2.
  assert.equal(ndcgAt(ranking, judged, 3), 2.5 / (3 + 2 / Math.log2(3) + 0.5));
  assert.equal(precisionAt(ranking, judged, 10), 0.2);
  assert.equal(reciprocalRank(["x", "y", "d9"], judged, 2), 0);
  assert.equal(reciprocalRank(["x", "y", "d9"], judged), 1 / 3);
  assert.equal(ndcgAt([], judged, 5), 0);
});
