import assert from "node:assert/strict";
import { ConfigError, IssueList, MAX_LISTED_ISSUES } from "../../lib/errors.ts";

Deno.test("IssueList keeps the first 20 issues, counts the rest and works out no detail it will not list", () => {
  const issues = new IssueList("questions");
  issues.throwIfAny(); // nothing yet: no error
  let built = 0;
  for (let i = 0; i < 1000; i++) {
    issues.add(() => {
      built++;
      return { position: { file: "q.jsonl", line: i + 1 }, message: `problem ${i}` };
    });
  }
  issues.addAt("q.jsonl", 1001, "one more");
  assert.equal(built, MAX_LISTED_ISSUES);
  assert.equal(issues.count, 1001);
  assert.throws(
    () => issues.throwIfAny(),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(e.subject, "questions");
      assert.equal(e.issues.length, MAX_LISTED_ISSUES + 1);
      assert.equal(e.issues[19].message, "problem 19");
      assert.deepEqual(e.issues[20], {
        position: { file: "q.jsonl" },
        message: "981 more problems not listed",
      });
      return true;
    },
  );
});

Deno.test("IssueList with fewer than 20 issues lists them all and no count", () => {
  const issues = new IssueList("run");
  issues.addAt("r.txt", 3, "bad score");
  issues.add({ position: { file: "r.txt", line: 4 }, message: "bad rank" });
  assert.throws(() => issues.throwIfAny(), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.deepEqual(e.issues.map((i) => i.message), ["bad score", "bad rank"]);
    return true;
  });
});
