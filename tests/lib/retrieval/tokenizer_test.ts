import assert from "node:assert/strict";
import {
  pluralStem,
  STOPWORDS,
  termOfSurface,
  tokenize,
} from "../../../lib/retrieval/tokenizer.ts";
import { TOKENIZER_CASES as cases } from "../../support/tokenizer_cases.ts";

for (const c of cases) {
  Deno.test(`tokenize ${c.name}`, () => {
    assert.deepEqual(tokenize(c.text), c.terms);
  });
}

Deno.test("tokenize gives the same terms every time", () => {
  const text = "The Eiffel Tower's 330 metres, 1,250 steps; 東京.";
  assert.deepEqual(tokenize(text), tokenize(text));
});

Deno.test("the stopword list is small and lower-case", () => {
  assert.ok(STOPWORDS.size < 60);
  for (const word of STOPWORDS) assert.equal(word, word.toLowerCase());
  assert.ok(!STOPWORDS.has("not"));
});

Deno.test("termOfSurface returns null for a stopword and cleans the rest", () => {
  assert.equal(termOfSurface("the"), null);
  assert.equal(termOfSurface("it's"), null);
  assert.equal(termOfSurface("1,250"), "1250");
  assert.equal(termOfSurface("o'neill"), "oneill");
});

Deno.test("pluralStem follows the documented rule", () => {
  const table: Array<[string, string]> = [
    ["cities", "city"],
    ["plays", "play"],
    ["eies", "eies"],
    ["aies", "aies"],
    ["goes", "goes"],
    ["glass", "glass"],
    ["status", "status"],
    ["its", "its"],
    ["tower", "tower"],
  ];
  for (const [word, stem] of table) assert.equal(pluralStem(word), stem, word);
});
