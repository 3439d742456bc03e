import assert from "node:assert/strict";
import {
  trecQrelsText,
  trecRunName,
  trecRunText,
  writeTrecFiles,
} from "../../../lib/report/trec_run.ts";
import { tempTree } from "../../support/temp.ts";
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

Deno.test("writeTrecFiles: qrels, one run per retrieving system and repeat, none for a closed-book system", async () => {
  await using t = await tempTree();
  const result = (system: string, repeat: number, retrieved: boolean, ranking: string[]) =>
    ({
      system,
      question_id: "q1",
      repeat,
      retrieval: { retrieved, ranking, scores: ranking.map((_, i) => 10 - i) },
    }) as unknown as QuestionResult;
  const written = await writeTrecFiles(
    t.dir,
    [{ name: "closed", tools: [] }, { name: "rag", tools: [] }],
    [
      result("closed", 1, false, []),
      result("rag", 1, true, ["a", "b"]),
      result("rag", 2, true, ["b"]),
    ],
    [{ id: "q1", question: "?", checks: [], evidence: [{ id: "a", grade: 2 }] }],
  );
  assert.deepEqual(written, {
    files: ["trec/qrels.txt", "trec/rag.run", "trec/rag.repeat2.run"],
    skipped: 0,
  });
  assert.equal(Deno.readTextFileSync(t.path("trec/qrels.txt")), "q1 0 a 2\n");
  assert.equal(
    Deno.readTextFileSync(t.path("trec/rag.run")),
    "q1 Q0 a 1 10 rag\nq1 Q0 b 2 9 rag\n",
  );
  assert.equal(Deno.readTextFileSync(t.path("trec/rag.repeat2.run")), "q1 Q0 b 1 10 rag\n");
});
