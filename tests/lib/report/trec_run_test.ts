import assert from "node:assert/strict";
import {
  trecQrelsText,
  trecRunName,
  trecRunText,
  writeTrecFiles,
} from "../../../lib/report/trec_run.ts";
import { evalUnderHeap } from "../../support/small_heap.ts";
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

Deno.test("writeTrecFiles writes a run file a question at a time (2,000 × 1,000 ranked documents under a 48 MB heap)", async () => {
  // The rankings share one array, so the results are small; their run file (~70 MB) is not.
  // Made as one string (as before) it cannot fit the heap; a long retrieval run's could exceed
  // what any string can hold.
  await using t = await tempTree();
  const module = new URL("../../../lib/report/trec_run.ts", import.meta.url).href;
  const printed = await evalUnderHeap(
    48,
    `const { writeTrecFiles } = await import(${JSON.stringify(module)});
    const ranking = Array.from({ length: 1000 }, (_, i) => "doc" + i);
    const scores = ranking.map((_, i) => 1000 - i);
    const results = Array.from({ length: 2000 }, (_, q) => ({
      system: "bm25", question_id: "q" + q, repeat: 1,
      retrieval: { retrieved: true, ranking, scores },
    }));
    const { files, skipped } = await writeTrecFiles(${JSON.stringify(t.dir)},
      [{ name: "bm25", tools: [] }], results, []);
    console.log(files.join(","), skipped);`,
  );
  assert.equal(printed, "trec/qrels.txt,trec/bm25.run 0");
  using file = Deno.openSync(t.path("trec/bm25.run"));
  const head = new Uint8Array(64);
  file.readSync(head);
  assert.match(new TextDecoder().decode(head), /^q0 Q0 doc0 1 1000 bm25\nq0 Q0 doc1 2 999 bm25\n/);
  const expected = Array.from(
    { length: 2000 },
    (_, q) =>
      Array.from({ length: 1000 }, (_, i) => `q${q} Q0 doc${i} ${i + 1} ${1000 - i} bm25\n`.length)
        .reduce((a, b) => a + b, 0),
  ).reduce((a, b) => a + b, 0);
  assert.equal(Deno.statSync(t.path("trec/bm25.run")).size, expected);
});
