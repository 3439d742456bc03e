import assert from "node:assert/strict";
import {
  type Analysis,
  DEFAULT_ANALYSIS,
  isStopword,
  LEGACY_ANALYSIS,
  pluralStem,
  snowballStem,
  STOPWORDS,
  termOfSurface,
  tokenize,
} from "../../../lib/lexical/tokenizer.ts";
import { isSingleLetter } from "../../../lib/lexical/token_spans.ts";
import { analysisOf, TOKENIZER_CASES as cases } from "../../support/tokenizer_cases.ts";

for (const c of cases) {
  Deno.test(`tokenize ${c.name}`, () => {
    assert.deepEqual(tokenize(c.text, analysisOf(c)), c.terms);
  });
}

Deno.test("tokenize defaults to English stopwords, Snowball, abbreviations kept and single letters dropped", () => {
  assert.deepEqual(DEFAULT_ANALYSIS, {
    stemmer: "snowball",
    stopwords: "english",
    abbreviations: "keep",
    singleLetters: "drop",
  });
  assert.deepEqual(tokenize("The running generators"), ["run", "generat"]);
  assert.deepEqual(tokenize("I ran e.g. in the U.S."), ["ran", "e.g", "u.s"]);
});

Deno.test("with both options off, tokenize is the old rule (LEGACY_ANALYSIS)", () => {
  assert.deepEqual(LEGACY_ANALYSIS, {
    stemmer: "snowball",
    stopwords: "english",
    abbreviations: "split",
    singleLetters: "keep",
  });
  assert.deepEqual(tokenize("I ran e.g. in the U.S.", LEGACY_ANALYSIS), [
    "i",
    "ran",
    "e",
    "g",
    "u",
    "s",
  ]);
});

Deno.test("isSingleLetter is true for a word of one character only", () => {
  for (const word of ["a", "é", "\u{10330}", "ß"]) assert.ok(isSingleLetter(word), word);
  for (const word of ["ab", "7", "東", "\u{20000}", "", "\u{10330}x", "e.g"]) {
    assert.ok(!isSingleLetter(word), word);
  }
});

/**
 * Words and their stems under the Snowball English (Porter2) algorithm, taken
 * from the algorithm's published description and its sample vocabulary: one
 * or more words for each step (apostrophe and plural handling, the special
 * forms, the exceptions, steps 1a-5, and the R1 exceptions of `gener`,
 * `commun`, `arsen`).
 */
const SNOWBALL_STEMS: ReadonlyArray<[string, string]> = [
  // Step 1a: sses, ied/ies, us/ss, s.
  ["caresses", "caress"],
  ["ties", "tie"],
  ["cries", "cri"],
  ["gas", "gas"],
  ["gaps", "gap"],
  ["kiwis", "kiwi"],
  // Step 1b: eed, ed, ing (with at/bl/iz, double consonant and short-word rules).
  ["agreed", "agre"],
  ["feed", "feed"],
  ["plastered", "plaster"],
  ["bled", "bled"],
  ["motoring", "motor"],
  ["sing", "sing"],
  ["conflated", "conflat"],
  ["troubled", "troubl"],
  ["sized", "size"],
  ["hopping", "hop"],
  ["tanned", "tan"],
  ["falling", "fall"],
  ["hissing", "hiss"],
  ["fizzed", "fizz"],
  ["failing", "fail"],
  ["filing", "file"],
  // Step 1c: y -> i after a non-vowel that is not the first letter.
  ["cry", "cri"],
  ["by", "by"],
  ["say", "say"],
  // Step 2.
  ["relational", "relat"],
  ["conditional", "condit"],
  ["valenci", "valenc"],
  ["digitizer", "digit"],
  ["vietnamization", "vietnam"],
  ["predication", "predic"],
  ["feudalism", "feudal"],
  ["decisiveness", "decis"],
  ["hopefulness", "hope"],
  ["callousness", "callous"],
  ["sensibiliti", "sensibl"],
  // Step 3.
  ["triplicate", "triplic"],
  ["formative", "format"],
  ["formalize", "formal"],
  ["electrical", "electr"],
  ["hopeful", "hope"],
  ["goodness", "good"],
  // Step 4.
  ["revival", "reviv"],
  ["allowance", "allow"],
  ["inference", "infer"],
  ["airliner", "airlin"],
  ["adjustable", "adjust"],
  ["irritant", "irrit"],
  ["replacement", "replac"],
  ["adoption", "adopt"],
  ["communism", "communism"],
  ["effective", "effect"],
  // Step 5: e and ll.
  ["probate", "probat"],
  ["rate", "rate"],
  ["cease", "ceas"],
  ["controll", "control"],
  ["roll", "roll"],
  // Special R1 prefixes: gener, commun, arsen.
  ["generously", "generous"],
  ["generate", "generat"],
  ["arsenal", "arsenal"],
  // Exceptional forms (whole words) and the invariants after step 1a.
  ["skis", "ski"],
  ["skies", "sky"],
  ["dying", "die"],
  ["lying", "lie"],
  ["tying", "tie"],
  ["news", "news"],
  ["innings", "inning"],
  ["proceed", "proceed"],
  ["exceed", "exceed"],
  ["succeed", "succeed"],
  ["gently", "gentl"],
  ["ugly", "ugli"],
  ["only", "onli"],
  ["sky", "sky"],
  ["andes", "andes"],
  ["atlas", "atlas"],
  ["cosmos", "cosmos"],
  ["bias", "bias"],
  ["howe", "howe"],
  // The published sample vocabulary (consign..., knack...).
  ["consign", "consign"],
  ["consigned", "consign"],
  ["consignment", "consign"],
  ["consistency", "consist"],
  ["consolation", "consol"],
  ["consolatory", "consolatori"],
  ["conspiracy", "conspiraci"],
  ["knackeries", "knackeri"],
  ["kneeling", "kneel"],
  ["knightly", "knight"],
  ["knives", "knive"],
  // Words of this project's domain.
  ["aerodynamics", "aerodynam"],
  ["boundary", "boundari"],
  ["supersonic", "superson"],
];

Deno.test("snowballStem gives the published Snowball English stems", () => {
  for (const [word, stem] of SNOWBALL_STEMS) assert.equal(snowballStem(word), stem, word);
});

Deno.test("termOfSurface applies the analysis it is given", () => {
  const with_ = (settings: Partial<Analysis>) => ({ ...LEGACY_ANALYSIS, ...settings });
  assert.equal(termOfSurface("towers", with_({ stemmer: "plural" })), "tower");
  assert.equal(termOfSurface("generously", with_({ stemmer: "plural" })), "generously");
  assert.equal(termOfSurface("generously"), "generous");
  assert.equal(termOfSurface("the", with_({ stemmer: "none", stopwords: "none" })), "the");
  assert.equal(termOfSurface("the", with_({ stemmer: "none" })), null);
  assert.equal(termOfSurface("x"), null);
  assert.equal(termOfSurface("x", LEGACY_ANALYSIS), "x");
  assert.equal(termOfSurface("u.s"), "u.s");
});

Deno.test("tokenize gives the same terms every time", () => {
  const text = "The Eiffel Tower's 330 metres, 1,250 steps; 東京.";
  assert.deepEqual(tokenize(text), tokenize(text));
});

Deno.test("the stopword list is small and lower-case", () => {
  assert.ok(STOPWORDS.size < 60);
  for (const word of STOPWORDS) assert.equal(word, word.toLowerCase());
  assert.ok(!STOPWORDS.has("not"));
});

Deno.test("isStopword is exactly membership of the stopword list", () => {
  for (const word of STOPWORDS) {
    assert.ok(isStopword(word), word);
    for (const near of [word + "s", word.slice(1), word.slice(0, -1), word.toUpperCase()]) {
      assert.equal(isStopword(near), STOPWORDS.has(near), near);
    }
  }
  for (const word of ["", "not", "no", "thee", "whic", "withh", "a".repeat(100), "constructor"]) {
    assert.equal(isStopword(word), STOPWORDS.has(word), word);
  }
});

Deno.test("termOfSurface returns null for a stopword and cleans the rest", () => {
  const plural = { ...LEGACY_ANALYSIS, stemmer: "plural" } as const;
  assert.equal(termOfSurface("the", plural), null);
  assert.equal(termOfSurface("it's", plural), null);
  assert.equal(termOfSurface("1,250", plural), "1250");
  assert.equal(termOfSurface("o'neill", plural), "oneill");
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
