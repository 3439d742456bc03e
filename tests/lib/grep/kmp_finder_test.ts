import assert from "node:assert/strict";
import { KmpFinder } from "../../../lib/grep/kmp_finder.ts";
import { createRng } from "../../../lib/util/prng.ts";

Deno.test("KmpFinder finds what indexOf finds, from every position, on random repetitive texts", () => {
  const random = createRng(7);
  const pick = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  for (let round = 0; round < 400; round++) {
    // Small alphabets make borders, partial matches and overlaps common.
    const alphabet = ["ab", "aab", "abc", "a\u00e9", "\ud83d\ude00a"][round % 5];
    const text = pick(alphabet, Math.floor(random() * 200));
    const word = random() < 0.3 && text.length > 4
      ? text.slice(Math.floor(random() * (text.length - 3)), text.length)
        .slice(0, 1 + Math.floor(random() * 12))
      : pick(alphabet, 1 + Math.floor(random() * 8));
    const finder = new KmpFinder(word);
    for (let from = -1; from <= text.length + 1; from++) {
      assert.equal(
        finder.find(text, from),
        text.indexOf(word, Math.max(from, 0)),
        `${JSON.stringify(word)} in ${JSON.stringify(text)} from ${from}`,
      );
    }
  }
});

Deno.test("KmpFinder refuses an empty word", () => {
  assert.throws(() => new KmpFinder(""), /non-empty word/);
});

Deno.test("KmpFinder finds a word that indexOf is slow on at the same place", () => {
  const word = "a".repeat(500) + "b" + "a".repeat(499);
  const text = "a".repeat(20_000) + word + "a".repeat(10);
  assert.equal(new KmpFinder(word).find(text, 0), 20_000);
  assert.equal(new KmpFinder(word).find(text, 20_001), -1);
});
