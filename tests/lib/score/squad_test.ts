import assert from "node:assert/strict";
import type { Check } from "../../../lib/data/question_schema.ts";
import { runCheck } from "../../../lib/score/checks.ts";
import { bestOver, exactMatch, normalizeAnswer, tokenF1 } from "../../../lib/score/squad.ts";

Deno.test("SQuAD normalisation: lower case, ASCII punctuation and articles removed, spaces collapsed", () => {
  assert.equal(normalizeAnswer("The  Denver Broncos!"), "denver broncos");
  assert.equal(normalizeAnswer("  an Apple, a pear; THE end. "), "apple pear end");
  // Articles only as whole words; punctuation is removed before articles, as SQuAD does.
  assert.equal(normalizeAnswer("theater anthem a-the"), "theater anthem athe");
  assert.equal(normalizeAnswer("U.S. (1,000)"), "us 1000");
  // string.punctuation is ASCII only: a typographic apostrophe stays.
  assert.equal(normalizeAnswer("Newton’s law"), "newton’s law");
  // A letter before an article makes it part of a word, in any script.
  assert.equal(normalizeAnswer("éa the"), "éa");
});

Deno.test("SQuAD worked examples: exact match and token F1 against gold answers", () => {
  assert.equal(exactMatch("the Denver Broncos", "Denver Broncos"), 1);
  assert.equal(exactMatch("Denver Broncos won", "Denver Broncos"), 0);
  // pred {denver, broncos, won}, gold {denver, broncos}: P = 2/3, R = 1, F1 = 0.8.
  assert.equal(tokenF1("Denver Broncos won", "Denver Broncos"), 0.8);
  // "cat sat on mat" vs "cat on mat": P = 3/4, R = 1, F1 = 6/7.
  assert.equal(tokenF1("the cat sat on the mat", "a cat on a mat"), 6 / 7);
  // Tokens are a multiset: "cat cat" vs "cat" shares one token: P = 1/2, R = 1.
  assert.equal(tokenF1("cat cat", "cat"), 2 / 3);
  assert.equal(tokenF1("Santa Clara", "Levi's Stadium"), 0);
  // Empty after normalisation: 1 only when both are empty.
  assert.equal(tokenF1("The", "a"), 1);
  assert.equal(tokenF1("the", "Paris"), 0);
  const best = bestOver(tokenF1, "Broncos", ["Denver Broncos", "Broncos"]);
  assert.deepEqual(best, { score: 1, gold: "Broncos" });
});

Deno.test("exact_match and token_f1 checks: best over gold answers, threshold, detail shows the F1", () => {
  const em: Check = { type: "exact_match", answers: ["Denver Broncos", "Broncos"] };
  assert.deepEqual(runCheck(em, "The Broncos.", []), {
    type: "exact_match",
    passed: true,
    detail: 'normalised answer equals gold "Broncos"',
  });
  assert.equal(runCheck(em, "It was the Broncos", []).passed, false);
  const f1: Check = { type: "token_f1", answers: ["Denver Broncos"], threshold: 0.5 };
  assert.deepEqual(runCheck(f1, "Denver Broncos won", []), {
    type: "token_f1",
    passed: true,
    detail: 'F1 0.8000 against gold "Denver Broncos" (pass at ≥ 0.5)',
  });
  const strict: Check = { type: "token_f1", answers: ["Denver Broncos"], threshold: 0.9 };
  assert.equal(runCheck(strict, "Denver Broncos won", []).passed, false);
  assert.deepEqual(runCheck(f1, null, []), {
    type: "token_f1",
    passed: false,
    detail: "no answer",
  });
  assert.equal(
    runCheck({ type: "exact_match", answers: [] }, "x", []).detail,
    "no gold answers to compare with",
  );
});
