import assert from "node:assert/strict";
import { RagbenchError } from "../../../lib/errors.ts";
import { previousResults } from "../../../lib/run/previous_results.ts";

const line = (system: string, question_id: string, repeat: number, answer = "x") => ({
  system,
  question_id,
  repeat,
  passed: true,
  answer_score: 1,
  answer,
});

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

Deno.test("previous results: a line that is not a ragbench result refuses the resume, naming the file", () => {
  for (const bad of [{ user: "data" }, [1, 2], null, "text", { ...line("a", "q", 1), repeat: 0 }]) {
    assert.throws(
      () => previousResults([line("a", "q", 1), bad], "d/per_question_results.jsonl"),
      (e: unknown) =>
        e instanceof RagbenchError && e.code === "data" &&
        e.message.startsWith(
          '"d/per_question_results.jsonl": result 2 is not a ragbench result line',
        ),
    );
  }
});
