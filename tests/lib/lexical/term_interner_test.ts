import assert from "node:assert/strict";
import { TermInterner } from "../../../lib/lexical/term_interner.ts";
import {
  type Analysis,
  DEFAULT_ANALYSIS,
  LEGACY_ANALYSIS,
  tokenize,
} from "../../../lib/lexical/tokenizer.ts";
import {
  analysisOf,
  PLURAL_ANALYSIS,
  TOKENIZER_CASES as cases,
} from "../../support/tokenizer_cases.ts";

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

const ASCII_ALPHABET = "abAZ0123456789 ,,...'-\n'sS";
const interner = new TermInterner(PLURAL_ANALYSIS);
const interners = new Map<string, TermInterner>();

function internedTerms(text: string, local = interner): string[] {
  return Array.from(local.termIds(text), (id) => local.terms[id]);
}

const ANALYSES: readonly Analysis[] = [
  PLURAL_ANALYSIS,
  DEFAULT_ANALYSIS,
  LEGACY_ANALYSIS,
  { stemmer: "none", stopwords: "none", abbreviations: "keep", singleLetters: "keep" },
];

for (const analysis of ANALYSES) {
  const label =
    `${analysis.stemmer}/${analysis.stopwords}/${analysis.abbreviations}/${analysis.singleLetters}`;
  const local = new TermInterner(analysis);
  Deno.test(`TermInterner gives exactly tokenize's terms on ASCII text (fast path, ${label})`, () => {
    for (const text of awkwardTexts(3000, ASCII_ALPHABET + "ingedly")) {
      assert.deepEqual(internedTerms(text, local), tokenize(text, analysis), JSON.stringify(text));
    }
  });

  Deno.test(`TermInterner gives exactly tokenize's terms on non-ASCII text (${label})`, () => {
    for (const text of awkwardTexts(3000, ASCII_ALPHABET + "é\u2019\u00a0Ä東\ufb01ing")) {
      assert.deepEqual(internedTerms(text, local), tokenize(text, analysis), JSON.stringify(text));
    }
  });
}

Deno.test("TermInterner gives each tokenizer case's terms", () => {
  for (const c of cases) {
    const key = JSON.stringify(analysisOf(c));
    let local = interners.get(key);
    if (!local) interners.set(key, local = new TermInterner(analysisOf(c)));
    assert.deepEqual(internedTerms(c.text, local), c.terms, c.name);
  }
});

Deno.test("TermInterner gives one id per term, whichever path and spelling found it", () => {
  const local = new TermInterner(PLURAL_ANALYSIS);
  const first = Array.from(local.termIds("Towers tower TOWER's"));
  const second = Array.from(local.termIds("tower\u00a0Tower"));
  assert.equal(new Set([...first, ...second]).size, 1);
  assert.equal(local.terms.length, 1);
  assert.equal(local.dictionary.idOf("tower"), first[0]);
  assert.equal(local.dictionary.idOf("towers"), undefined);
  assert.equal(local.dictionary.idOf(""), undefined);
});

Deno.test("TermInterner keeps its term ids after forgetting the surface forms it has seen", () => {
  const local = new TermInterner(PLURAL_ANALYSIS);
  const before = Array.from(local.termIds("Towers of the city, tower's stone 1,250"));
  local.forgetSurfaces();
  // Learnt again from scratch, every form maps to the id its term already has.
  assert.deepEqual(Array.from(local.termIds("Towers of the city, tower's stone 1,250")), before);
  assert.deepEqual(Array.from(local.termIds("cities")), [local.dictionary.idOf("city")]);
  assert.equal(local.terms.length, new Set(before).size);
});

Deno.test("TermInterner keeps long and similar terms apart across table growth", () => {
  const local = new TermInterner(PLURAL_ANALYSIS);
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
  const local = new TermInterner(PLURAL_ANALYSIS);
  const long = "q".repeat(100_000);
  assert.deepEqual(Array.from(local.termIds(`${long} end`)), [0, 1]);
  assert.equal(local.terms[0], long);
});
