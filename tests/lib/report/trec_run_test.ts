import assert from "node:assert/strict";
import { trecQrelsText, trecRunName, trecRunText } from "../../../lib/report/trec_run.ts";
import type { QuestionResult } from "../../../lib/types.ts";

function line(question_id: string, ranking: string[], scores: number[]): QuestionResult {
  return { question_id, retrieval: { ranking, scores } } as unknown as QuestionResult;
}

Deno.test("TREC run text: qid Q0 docid rank score tag, scores written to round-trip", () => {
  const { text, skipped } = trecRunText("bm25", [
    line("q1", ["d2", "d1"], [12.5, 0.1 + 0.2]),
    line("q2", [], []),
  ]);
  assert.equal(skipped, 0);
  assert.equal(text, "q1 Q0 d2 1 12.5 bm25\nq1 Q0 d1 2 0.30000000000000004 bm25\n");
  assert.equal(Number(text.split("\n")[1].split(" ")[4]), 0.1 + 0.2);
});

Deno.test("TREC files leave out and count lines whose ids hold whitespace", () => {
  const run = trecRunText("s", [line("q 1", ["a"], [1]), line("q2", ["my doc", "b"], [2, 1])]);
  assert.equal(run.text, "q2 Q0 b 2 1 s\n");
  assert.equal(run.skipped, 2);
  const qrels = trecQrelsText([
    {
      id: "q2",
      question: "?",
      checks: [],
      evidence: [{ id: "b", grade: 3 }, { id: "x y", grade: 1 }],
    },
  ]);
  assert.equal(qrels.text, "q2 0 b 3\n");
  assert.equal(qrels.skipped, 1);
  const old = { question_id: "q3", retrieval: { ranking: ["a"] } } as unknown as QuestionResult;
  assert.deepEqual(trecRunText("s", [old]), { text: "", skipped: 1 });
  assert.equal(trecRunName("s", 1), "s.run");
  assert.equal(trecRunName("s", 3), "s.repeat3.run");
});
