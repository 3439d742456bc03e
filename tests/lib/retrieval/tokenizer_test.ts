import assert from "node:assert/strict";
import {
  pluralStem,
  STOPWORDS,
  TermInterner,
  termOfSurface,
  tokenize,
} from "../../../lib/retrieval/tokenizer.ts";

const cases: Array<{ name: string; text: string; terms: string[] }> = [
  { name: "lower-cases", text: "Eiffel TOWER eIFFEL", terms: ["eiffel", "tower", "eiffel"] },
  {
    name: "splits on spaces, punctuation and symbols",
    text: "hello,world! (tower)\t[spire]; a/b+c=d#e@f",
    terms: ["hello", "world", "tower", "spire", "b", "c", "d", "e", "f"],
  },
  { name: "splits hyphenated words", text: "state-of-the-art", terms: ["state", "art"] },
  {
    name: "keeps apostrophes inside words and then drops them",
    text: "don't O'Neill rock'n'roll",
    terms: ["dont", "oneill", "rocknroll"],
  },
  {
    name: "treats a typographic apostrophe like a plain one",
    text: "O\u2019Neill",
    terms: ["oneill"],
  },
  {
    name: "makes a possessive the plain word (apostrophe dropped, then the plural rule)",
    text: "the Eiffel's height",
    terms: ["eiffel", "height"],
  },
  {
    name: "an apostrophe at a word edge separates",
    text: "'quoted' towers'",
    terms: ["quoted", "tower"],
  },
  { name: "a year before a full stop", text: "It opened in 1889.", terms: ["opened", "1889"] },
  { name: "keeps a decimal point", text: "3.5 km", terms: ["3.5", "km"] },
  {
    name: "removes thousands separators",
    text: "1,250 and 10,000,000",
    terms: ["1250", "10000000"],
  },
  {
    name: "a decimal with thousands separators",
    text: "8,848.86 m",
    terms: ["8848.86", "m"],
  },
  {
    name: "a comma not followed by three digits splits",
    text: "3,5 1,2345",
    terms: ["3", "5", "1", "2345"],
  },
  { name: "version numbers stay whole", text: "v1.2.3", terms: ["v", "1.2.3"] },
  { name: "a sign is not part of a number", text: "-5 +7", terms: ["5", "7"] },
  {
    name: "splits where letters meet digits",
    text: "828m COVID19 1950s",
    terms: ["828", "m", "covid", "19", "1950", "s"],
  },
  { name: "keeps accented letters", text: "Zürich Café", terms: ["zürich", "café"] },
  {
    name: "NFKC joins a letter and a combining accent into the precomposed letter",
    text: "Cafe\u0301",
    terms: ["café"],
  },
  {
    name: "NFKC folds full-width letters, ligatures and superscripts",
    text: "\uff34\uff4f\uff4b\uff59\uff4f \ufb01le m\u00b2",
    terms: ["tokyo", "file", "m", "2"],
  },
  {
    name: "each Han, Hiragana or Katakana character is a token",
    text: "東京タワー 333 m",
    terms: ["東", "京", "タ", "ワ", "ー", "333", "m"],
  },
  { name: "Greek and Cyrillic words are words", text: "Αθήνα Москва", terms: ["αθήνα", "москва"] },
  {
    name: "letters outside the Basic Multilingual Plane stay in their word",
    text: "x\u{20000}y z",
    terms: ["x", "\u{20000}", "y", "z"],
  },
  { name: "emoji separate", text: "tower😀spire", terms: ["tower", "spire"] },
  { name: "a lone surrogate separates", text: "ab\ud800cd", terms: ["ab", "cd"] },
  {
    name: "removes stopwords, including question words",
    text: "What is the height of the tower, and who built it?",
    terms: ["height", "tower", "built"],
  },
  { name: "keeps negation", text: "not no", terms: ["not", "no"] },
  { name: "a query of stopwords only has no terms", text: "The of and what is it", terms: [] },
  { name: "empty text has no terms", text: "", terms: [] },
  { name: "punctuation only has no terms", text: " ... --- !!! ", terms: [] },
  {
    name: "applies the plural rule",
    text: "cities towers metres boys",
    terms: ["city", "tower", "metre", "boy"],
  },
  {
    name: "the plural rule leaves -ss, -us, -aes/-ees/-oes, -eies/-aies and short words",
    text: "class bonus heroes trees gas yes",
    terms: ["class", "bonus", "heroes", "trees", "gas", "yes"],
  },
];

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

/** A deterministic generator of awkward texts. */
function* awkwardTexts(count: number, alphabet: string): Generator<string> {
  let state = 12345;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 8;
  };
  for (let i = 0; i < count; i++) {
    const length = next() % 40;
    let text = "";
    for (let j = 0; j < length; j++) text += alphabet[next() % alphabet.length];
    yield text;
  }
}

const ASCII_ALPHABET = "abAZ0123456789 ,,..'-\n'sS";
const interner = new TermInterner();

function internedTerms(text: string): string[] {
  return Array.from(interner.termIds(text), (id) => interner.terms[id]);
}

Deno.test("TermInterner gives exactly tokenize's terms on ASCII text (fast path)", () => {
  for (const text of awkwardTexts(3000, ASCII_ALPHABET)) {
    assert.deepEqual(internedTerms(text), tokenize(text), JSON.stringify(text));
  }
});

Deno.test("TermInterner gives exactly tokenize's terms on non-ASCII text", () => {
  for (const text of awkwardTexts(3000, ASCII_ALPHABET + "é\u2019\u00a0Ä東\ufb01")) {
    assert.deepEqual(internedTerms(text), tokenize(text), JSON.stringify(text));
  }
  for (const c of cases) assert.deepEqual(internedTerms(c.text), c.terms, c.name);
});

Deno.test("TermInterner gives one id per term, whichever path and spelling found it", () => {
  const local = new TermInterner();
  const first = Array.from(local.termIds("Towers tower TOWER's"));
  const second = Array.from(local.termIds("tower\u00a0Tower"));
  assert.equal(new Set([...first, ...second]).size, 1);
  assert.equal(local.terms.length, 1);
  assert.equal(local.dictionary.idOf("tower"), first[0]);
  assert.equal(local.dictionary.idOf("towers"), undefined);
  assert.equal(local.dictionary.idOf(""), undefined);
});

Deno.test("TermInterner keeps long and similar terms apart across table growth", () => {
  const local = new TermInterner();
  const words: string[] = [];
  const letters = (n: number) =>
    n.toString(26).replace(/./g, (d) => "abcdefghijklmnopqrstuvwxyz"[parseInt(d, 26)]);
  for (let i = 0; i < 20000; i++) words.push(`internationalization${letters(i)}x`);
  words.push("internationalization", "internationalisation");
  local.termIds(words.join(" "));
  assert.equal(local.terms.length, words.length);
  for (const [i, word] of words.entries()) assert.equal(local.dictionary.idOf(word), i, word);
  assert.equal(local.dictionary.size, words.length);
});

Deno.test("TermInterner handles a token longer than its buffers", () => {
  const local = new TermInterner();
  const long = "q".repeat(100_000);
  assert.deepEqual(Array.from(local.termIds(`${long} end`)), [0, 1]);
  assert.equal(local.terms[0], long);
});
