import assert from "node:assert/strict";
import {
  closestMatch,
  editDistance,
  MAX_SUGGESTED_LENGTH,
  suggestion,
} from "../../../lib/util/did_you_mean.ts";

Deno.test("editDistance counts insertions, deletions, substitutions and adjacent swaps", () => {
  assert.equal(editDistance("calculator", "calculator"), 0);
  assert.equal(editDistance("calculater", "calculator"), 1);
  assert.equal(editDistance("serch", "search"), 1);
  assert.equal(editDistance("saerch", "search"), 1);
  assert.equal(editDistance("", "abc"), 3);
});

Deno.test("closestMatch suggests a near name, ignoring case, and nothing for a far one", () => {
  const names = ["calculator", "date_calc", "corpus_grep", "search"];
  assert.equal(closestMatch("Calculater", names), "calculator");
  assert.equal(closestMatch("corpus-grep", names), "corpus_grep");
  assert.equal(closestMatch("weather", names), undefined);
  assert.equal(closestMatch("x", []), undefined);
});

Deno.test("closestMatch: ties go to the earlier candidate", () => {
  assert.equal(closestMatch("cat", ["bat", "rat"]), "bat");
});

Deno.test("closestMatch gives no suggestion for a huge name, at once", () => {
  const huge = "a".repeat(4_000_000);
  const started = performance.now();
  assert.equal(closestMatch(huge, ["search", "a".repeat(MAX_SUGGESTED_LENGTH + 1)]), undefined);
  assert.ok(performance.now() - started < 1000);
});

Deno.test("closestMatch skips candidates whose length rules them out, without missing a match", () => {
  const ids = Array.from({ length: 50_000 }, (_, i) => `document_${i}_${"x".repeat(i % 40)}`);
  ids.push("eiffel_tower");
  const started = performance.now();
  assert.equal(closestMatch("eifel_tower", ids), "eiffel_tower");
  assert.ok(performance.now() - started < 2000);
});

Deno.test("suggestion: a did-you-mean, or the list of valid names", () => {
  assert.equal(suggestion("serch", ["search", "calculator"]), 'did you mean "search"?');
  assert.equal(suggestion("zzz", ["a", "b"]), 'expected one of "a", "b"');
  assert.equal(suggestion("zzz", []), "");
  const many = Array.from({ length: 20 }, (_, i) => `name${i}`);
  assert.match(suggestion("zzzzzzzz", many), /"name11", …$/);
});
