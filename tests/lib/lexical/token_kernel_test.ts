import assert from "node:assert/strict";
import { TermInterner } from "../../../lib/lexical/term_interner.ts";
import { TokenKernel } from "../../../lib/lexical/token_kernel.ts";
import {
  type Analysis,
  DEFAULT_ANALYSIS,
  LEGACY_ANALYSIS,
  tokenize,
} from "../../../lib/lexical/tokenizer.ts";
import { createRng } from "../../../lib/util/prng.ts";

/** Pieces random texts are made of: every character class of the rule, and its contexts. */
const PIECES = [
  "a",
  "Z",
  "q",
  "e",
  "0",
  "7",
  "9",
  "'",
  ".",
  ",",
  " ",
  "\n",
  "-",
  "\t",
  "!",
  "@",
  "[",
  "`",
  "{",
  "/",
  ":",
  "\x00",
  "\x7f",
  "don't",
  "O'Neill",
  "a''b",
  "'s",
  "3.5",
  "1.2.3",
  "1,250",
  "10,000,000",
  "3,5",
  "1,2345",
  "1,234.5",
  "12,345,6789",
  ",123",
  "1953.",
  "covid19",
  "828m",
  "Connections",
  "GENEROUSLY",
  "the",
  "The",
  "what",
  "Document",
  "supercalifragilistic",
  "internationalisations",
  "abcdefghijklmnopq",
  "abcdefghijklmnopr",
  "abcdefghABCDEFGHabcdefgh",
  "abcdefghABCDEFGHabcdefgi",
  "e.g.",
  "U.S.A.",
  "i.e.,",
  "a.b",
  "x.",
  ".y",
  "Ph.D.",
  "q'a.b",
  "a.b'c",
  "1a.b",
  "A.",
];

/** A random ASCII text of `length` pieces (with runs and very long words now and then). */
function randomText(random: () => number, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) {
    const r = random();
    if (r < 0.02) text += PIECES[Math.floor(random() * PIECES.length)].repeat(1 + random() * 200);
    else text += PIECES[Math.floor(random() * PIECES.length)];
  }
  return text;
}

const ANALYSES: readonly Analysis[] = [
  DEFAULT_ANALYSIS,
  LEGACY_ANALYSIS,
  { ...LEGACY_ANALYSIS, stemmer: "plural", abbreviations: "keep" },
  { stemmer: "none", stopwords: "none", abbreviations: "keep", singleLetters: "keep" },
  { stemmer: "none", stopwords: "none", abbreviations: "split", singleLetters: "drop" },
];

for (const analysis of ANALYSES) {
  const label =
    `${analysis.stemmer}/${analysis.stopwords}/${analysis.abbreviations}/${analysis.singleLetters}`;
  Deno.test(`the kernel gives the JavaScript scan's ids on random ASCII texts (${label})`, () => {
    const random = createRng(20261201);
    const fast = new TermInterner(analysis);
    const slow = new TermInterner(analysis, { kernel: false });
    for (let t = 0; t < 3000; t++) {
      // Short texts and texts across several 64-byte steps.
      const text = randomText(
        random,
        t % 3 === 0 ? Math.floor(random() * 12) : Math.floor(random() * 300),
      );
      const want = Array.from(slow.termIds(text));
      assert.deepEqual(Array.from(fast.termIds(text)), want, JSON.stringify(text));
    }
    assert.deepEqual(fast.terms, slow.terms);
  });
}

for (const analysis of [DEFAULT_ANALYSIS, LEGACY_ANALYSIS]) {
  Deno.test(`the kernel's terms are tokenize's on random ASCII texts (abbreviations ${analysis.abbreviations})`, () => {
    const random = createRng(7);
    const interner = new TermInterner(analysis);
    for (let t = 0; t < 1000; t++) {
      const text = randomText(random, Math.floor(random() * 200));
      const terms = Array.from(interner.termIds(text), (id) => interner.terms[id]);
      assert.deepEqual(terms, tokenize(text, analysis), JSON.stringify(text));
    }
  });

  Deno.test(`the kernel finds a token at every offset from a 64-byte step's edge (abbreviations ${analysis.abbreviations})`, () => {
    const fast = new TermInterner(analysis);
    const slow = new TermInterner(analysis, { kernel: false });
    const words = ["don't", "3.5", "1,250", "ab", "x", "Internationalisation", "12,345,678"];
    words.push("e.g", "U.S.A", "a.b'c", "x'a.b", "ab.c", "a.bc");
    for (const word of words) {
      for (let at = 0; at < 140; at++) {
        for (const before of [" ", "q", "7", "'", ",", "."]) {
          const text = " ".repeat(at) + before + word + before + word;
          assert.deepEqual(Array.from(fast.termIds(text)), Array.from(slow.termIds(text)), text);
        }
      }
    }
  });
}

Deno.test("the kernel handles empty, one-character and hostile texts as the JavaScript scan", () => {
  const fast = new TermInterner();
  const slow = new TermInterner(undefined, { kernel: false });
  const texts = [
    "",
    "a",
    "'",
    ".",
    ",",
    "0",
    "a".repeat(100_000),
    "A".repeat(70_000) + "b",
    "ab".repeat(50_000),
    "a1".repeat(40_000),
    "1,".repeat(30_000),
    "1,000".repeat(10_000),
    "x'".repeat(20_000),
    "9.".repeat(20_000),
    "a.".repeat(20_000),
    "a.b ".repeat(20_000),
    "a'a.".repeat(20_000),
    "'".repeat(1000),
    " ".repeat(5000),
  ];
  for (const text of texts) {
    assert.deepEqual(
      Array.from(fast.termIds(text)),
      Array.from(slow.termIds(text)),
      text.slice(0, 40),
    );
  }
});

Deno.test("the kernel keeps many long keys that share their first 16 bytes apart", () => {
  const none = { ...DEFAULT_ANALYSIS, stemmer: "none", stopwords: "none" } as const;
  const fast = new TermInterner(none);
  const slow = new TermInterner(none, { kernel: false });
  const words: string[] = [];
  // 40,000 forms: the table grows several times, the pool takes several chunks.
  const letters = (i: number) =>
    i.toString(26).replace(/./g, (d) => "abcdefghijklmnopqrstuvwxyz"[parseInt(d, 26)]);
  for (let i = 0; i < 40_000; i++) words.push(`sharedprefixsharedprefix${letters(i)}x`);
  const text = words.join(" ");
  assert.deepEqual(Array.from(fast.termIds(text)), Array.from(slow.termIds(text)));
  assert.equal(fast.terms.length, 40_000);
  // Seen again: every word found in the table, none learnt twice.
  assert.deepEqual(Array.from(fast.termIds(text)), Array.from(slow.termIds(text)));
  assert.equal(fast.terms.length, 40_000);
});

Deno.test("the kernel leaves non-ASCII texts to the JavaScript path", () => {
  const kernel = new TokenKernel(() => 0);
  assert.equal(kernel.ids("café"), null);
  assert.equal(kernel.ids("a\u2019b"), null);
  assert.equal(kernel.ids("lone \ud800 surrogate"), null);
  assert.deepEqual(Array.from(kernel.ids("plain text")!), [0, 0]);
});

Deno.test("the kernel asks for each new surface form once, lower-cased", () => {
  const asked: string[] = [];
  const kernel = new TokenKernel((surface) => {
    asked.push(surface);
    return surface === "the" ? -1 : asked.length;
  });
  assert.deepEqual(Array.from(kernel.ids("The cat, the CAT and don't 1,250")!), [2, 2, 3, 4, 5]);
  assert.deepEqual(asked, ["the", "cat", "and", "don't", "1,250"]);
  assert.equal(kernel.size, 5);
});

Deno.test("the kernel gives the same ids for the same texts in a fresh interner", () => {
  const random = createRng(99);
  const texts = Array.from({ length: 200 }, () => randomText(random, 150));
  const run = () => {
    const interner = new TermInterner();
    return texts.map((text) => Array.from(interner.termIds(text)));
  };
  assert.deepEqual(run(), run());
});

Deno.test("a retired kernel hands over memory of the size asked and refuses to scan", () => {
  const kernel = new TokenKernel(() => 0);
  kernel.ids("some text");
  const buffer = kernel.retire(10_000_000)!;
  assert.ok(buffer.byteLength >= 10_000_000);
  assert.throws(() => kernel.ids("more"), /This TokenKernel was retired: its memory is in use\./);
  assert.equal(new TokenKernel(() => 0).retire(2 ** 33), null);
});

Deno.test("recycleSurfaces hands over the kernel's memory, and nothing without a kernel", () => {
  const scalar = new TermInterner(undefined, { kernel: false });
  scalar.termIds("Towers of the city");
  assert.equal(scalar.recycleSurfaces(1000), null);
  const ascii = new TermInterner();
  const before = Array.from(ascii.termIds("Towers of the city"));
  assert.ok(ascii.recycleSurfaces(1000)!.byteLength >= 1000);
  // Later texts learn their forms again, in a new kernel, with the same ids.
  assert.deepEqual(Array.from(ascii.termIds("Towers of the city")), before);
});
