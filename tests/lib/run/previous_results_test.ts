import assert from "node:assert/strict";
import { RagbenchError } from "../../../lib/errors.ts";
import { previousResults } from "../../../lib/run/previous_results.ts";
import { resultLine } from "../../support/result_line.ts";

const line = (system: string, question_id: string, repeat: number, answer = "x") =>
  resultLine({ system, question_id, repeat, answer });

Deno.test("previous results: one line per system × question × repeat, the first kept", () => {
  const { results, duplicates } = previousResults([
    line("a", "q1", 1, "first"),
    line("a", "q1", 2),
    line("b", "q1", 1),
    line("a", "q1", 1, "second"),
  ], "r.jsonl");
  assert.equal(duplicates, 1);
  assert.deepEqual(results.map((r) => [r.system, r.question_id, r.repeat, r.answer]), [
    ["a", "q1", 1, "first"],
    ["a", "q1", 2, "x"],
    ["b", "q1", 1, "x"],
  ]);
});

Deno.test("previous results: a line scored by retrieval alone (passed and answer_score null) is a result", () => {
  const retrievalOnly = resultLine({
    system: "bm25",
    model: null,
    answer: null,
    passed: null,
    answer_score: null,
    checks: [],
  });
  const { results } = previousResults([retrievalOnly], "r.jsonl");
  // The very object read is kept: the rewrite finds its line in the file through it.
  assert.equal(results[0], retrievalOnly);
});

Deno.test("previous results: a line that is not a ragbench result refuses the resume, naming the file and the field", () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ user: "data" }, /\(system: Invalid input: expected string, received undefined\)/],
    [[1, 2], /\(the line: Invalid input: expected object, received array\)/],
    [null, /\(the line: Invalid input: expected object, received null\)/],
    ["text", /\(the line: Invalid input: expected object, received string\)/],
    [{ ...line("a", "q", 1), repeat: 0 }, /\(repeat: Too small/],
    [{ ...line("a", "q", 1), answer_score: 2 }, /\(answer_score: Too big/],
    [{ ...line("a", "q", 1), passed: "yes" }, /\(passed: Invalid input: expected boolean/],
    [{ ...line("a", "q", 1), steps: [{ type: "dance" }] }, /\(steps\.0\.type: /],
  ];
  for (const [bad, why] of cases) {
    assert.throws(
      () => previousResults([line("a", "q", 1), bad], "d/per_question_results.jsonl"),
      (e: unknown) =>
        e instanceof RagbenchError && e.code === "data" &&
        e.message.startsWith(
          '"d/per_question_results.jsonl": result 2 is not a ragbench result line (',
        ) && why.test(e.message),
      JSON.stringify(bad),
    );
  }
});
