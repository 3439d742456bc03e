import assert from "node:assert/strict";
import { RagbenchError } from "../../../lib/errors.ts";
import { previousResults, readPreviousResults } from "../../../lib/run/previous_results.ts";
import { jobKey } from "../../../lib/run/runner.ts";
import { tempTree } from "../../support/temp.ts";
import { resultLine } from "../../support/result_line.ts";

const line = (system: string, question_id: string, repeat: number, answer = "x") =>
  resultLine({ system, question_id, repeat, answer });

Deno.test("previous results: each system × question × repeat is done once, repeats counted", () => {
  const { done, results, duplicates } = previousResults([
    line("a", "q1", 1, "first"),
    line("a", "q1", 2),
    line("b", "q1", 1),
    line("a", "q1", 1, "second"),
  ], "r.jsonl");
  assert.equal(duplicates, 1);
  assert.equal(results, 4);
  assert.deepEqual([...done], [jobKey("a", "q1", 1), jobKey("a", "q1", 2), jobKey("b", "q1", 1)]);
});

Deno.test("previous results: the file is streamed, a cut-off last line repaired away, and no line kept", async () => {
  const lines = [line("a", "q1", 1), line("a", "q2", 1)].map((l) => JSON.stringify(l) + "\n");
  await using t = await tempTree({ "r.jsonl": lines.join("") + '{"system":"a","ques' });
  const read = readPreviousResults(t.path("r.jsonl"));
  assert.deepEqual(read, {
    done: new Set([jobKey("a", "q1", 1), jobKey("a", "q2", 1)]),
    results: 2,
    duplicates: 0,
  });
  assert.equal(await Deno.readTextFile(t.path("r.jsonl")), lines.join(""));
  assert.equal(readPreviousResults(t.path("none.jsonl")).results, 0);
  await Deno.writeTextFile(t.path("bad.jsonl"), lines[0] + "{not json\n");
  assert.throws(
    () => readPreviousResults(t.path("bad.jsonl")),
    (e: unknown) =>
      e instanceof RagbenchError && e.code === "data" &&
      e.message ===
        `"${t.path("bad.jsonl")}" line 2 is not valid JSON; move the file away or fix the line.`,
  );
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
  const { results, done } = previousResults([retrievalOnly], "r.jsonl");
  assert.equal(results, 1);
  assert.ok(
    done.has(jobKey(retrievalOnly.system, retrievalOnly.question_id, retrievalOnly.repeat)),
  );
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
