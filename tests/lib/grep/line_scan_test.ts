import assert from "node:assert/strict";
import {
  buildLineStore,
  CUT_MARK,
  cutLinesIn,
  documentRange,
  isCut,
  lineAddress,
  type LineStore,
  lineText,
  lowerForScan,
  SCAN_CHARS,
} from "../../../lib/grep/line_store.ts";
import { type LineHit, scanWords } from "../../../lib/grep/line_scan.ts";
import { scanRegex } from "../../../lib/grep/regex_scan.ts";
import { compileRegex, type Re2Regex } from "../../../lib/regex/re2.ts";
import { requiredLiterals } from "../../../lib/regex/re2_prefilter.ts";
import { toRe2Syntax } from "../../../lib/regex/re2_syntax.ts";
import type { Document } from "../../../lib/types.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";

function docs(...texts: string[]): Document[] {
  return texts.map((text, i) => ({ id: `d${i}`, title: `d${i}`, text, source: `d${i}.txt` }));
}

function address(store: LineStore, hit: LineHit): string {
  const { doc, lineNumber } = lineAddress(store, hit.line);
  return `${store.documents[doc].id}:${lineNumber}@${hit.column}`;
}

const WORDS = ["alpha", "beta", "Gamma", "delta", "é", "😀", "ka", "İx", "ß", "qu", "a"];

/** Random documents: mixed case, astral characters, CRLF, empty and over-long lines. */
function randomDocuments(seed: number, count: number): Document[] {
  const random = prng(seed);
  const texts: string[] = [];
  for (let d = 0; d < count; d++) {
    const lines: string[] = [];
    const n = 1 + Math.floor(random() * 12);
    for (let l = 0; l < n; l++) {
      const words: string[] = [];
      const length = random() < 0.02 ? 700 : Math.floor(random() * 9);
      for (let w = 0; w < length; w++) {
        let word = WORDS[Math.floor(random() * WORDS.length)];
        if (random() < 0.3) word = word.toUpperCase();
        words.push(word);
      }
      lines.push(words.join(random() < 0.5 ? " " : "-") + (random() < 0.1 ? "\r" : ""));
    }
    texts.push(lines.join("\n"));
  }
  return docs(...texts);
}

function scanned(store: LineStore, line: number): string {
  return lineText(store, line).slice(0, SCAN_CHARS).toWellFormed();
}

function bruteWords(
  store: LineStore,
  words: string[],
  caseSensitive: boolean,
  from = 0,
  to = store.lineCount,
): LineHit[] {
  const hits: LineHit[] = [];
  for (let line = from; line < to; line++) {
    const text = caseSensitive ? scanned(store, line) : scanned(store, line).toLowerCase();
    const at = words.map((w) => text.indexOf(caseSensitive ? w : w.toLowerCase()));
    if (at.every((i) => i >= 0)) hits.push({ line, column: Math.min(...at) });
  }
  return hits;
}

Deno.test("scanWords finds the lines holding every word, as a line-by-line check does", () => {
  const documents = randomDocuments(3, 400);
  // A small segment size makes the scan cross many segment boundaries.
  for (
    const store of [buildLineStore(documents), buildLineStore(documents, { segmentChars: 500 })]
  ) {
    const random = prng(5);
    for (let q = 0; q < 120; q++) {
      const words = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => WORDS[Math.floor(random() * WORDS.length)],
      );
      const caseSensitive = random() < 0.3;
      const needles = caseSensitive ? words : words.map((w) => w.toLowerCase());
      const from = random() < 0.3 ? Math.floor(random() * store.lineCount) : 0;
      const to = from === 0 ? store.lineCount : Math.min(store.lineCount, from + 50);
      const got = scanWords(store, needles, { caseSensitive, range: { from, to }, limit: 1e9 });
      const want = bruteWords(store, words, caseSensitive, from, to);
      assert.deepEqual(got.hits.map((h) => address(store, h)), want.map((h) => address(store, h)));
      assert.equal(got.stoppedAtLimit, false);
    }
  }
});

Deno.test("scans stop at the limit and say lines were left", () => {
  const store = buildLineStore(docs("a\na\na", "a"));
  const words = scanWords(store, ["a"], { caseSensitive: false, limit: 2 });
  assert.deepEqual(words.hits.map((h) => h.line), [0, 1]);
  assert.equal(words.stoppedAtLimit, true);
  const exact = scanWords(store, ["a"], { caseSensitive: false, limit: 4 });
  assert.equal(exact.hits.length, 4);
  assert.equal(exact.stoppedAtLimit, false);
});

async function regex(
  pattern: string,
  caseSensitive: boolean,
  lineMode: boolean,
): Promise<Re2Regex> {
  const compiled = await compileRegex(pattern, { caseSensitive, lineMode });
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.regex;
}

/**
 * Reference: the pattern on each scanned line alone, a cut line followed by the
 * mark that keeps `$` from matching at the cut; column in UTF-16 units.
 */
function bruteRegex(store: LineStore, re: Re2Regex, from = 0, to = store.lineCount): LineHit[] {
  const hits: LineHit[] = [];
  for (let line = from; line < to; line++) {
    const text = scanned(store, line);
    const bytes = new TextEncoder().encode(text);
    const found = re.search(isCut(store, line) ? Uint8Array.of(...bytes, CUT_MARK) : bytes);
    if (found === null) continue;
    const column = [...text].slice(0, found.index).join("").length;
    hits.push({ line, column });
  }
  return hits;
}

const PATTERNS = [
  "alpha",
  "^beta",
  "a$",
  "^$",
  "gamma.*delta",
  "\\bka\\b",
  "😀+",
  "é[^a]",
  "(a+)+$",
  "alpha\\s+beta",
  "[^x]{3}ka",
  "\\Aqu|delta\\z",
  "(?s)a.b",
  "\\D{2}é",
  "a\\nb",
  "x*",
  "(?i)ALPHA-BETA",
  "[[:upper:]]{2}",
  "\\pL+😀",
  "ss|ß",
  "İ",
  "ka\\d?-?qu",
];

Deno.test("scanRegex finds the same lines and columns as RE2 on each line alone", async () => {
  const documents = randomDocuments(7, 300);
  for (
    const store of [buildLineStore(documents), buildLineStore(documents, { segmentChars: 700 })]
  ) {
    for (const pattern of PATTERNS) {
      for (const caseSensitive of [false, true]) {
        const reference = await regex(pattern, caseSensitive, false);
        const lineMode = await regex(pattern, caseSensitive, true);
        const want = bruteRegex(store, reference).map((h) => address(store, h));
        const prefilter = requiredLiterals(toRe2Syntax(pattern), caseSensitive);
        for (const filter of [null, prefilter]) {
          const got = scanRegex(store, lineMode, { limit: 1e9, prefilter: filter });
          assert.deepEqual(
            got.hits.map((h) => address(store, h)),
            want,
            `/${pattern}/ case-sensitive=${caseSensitive} prefilter=${JSON.stringify(filter)}`,
          );
        }
      }
    }
  }
});

Deno.test("scanRegex searches only the given range and stops at the limit", async () => {
  const store = buildLineStore(randomDocuments(9, 100));
  const re = await regex("alpha", false, true);
  const reference = await regex("alpha", false, false);
  const range = documentRange(store, 40);
  const got = scanRegex(store, re, { range, limit: 1e9 });
  assert.deepEqual(got.hits, bruteRegex(store, reference, range.from, range.to));
  const limited = scanRegex(store, re, { limit: 3 });
  assert.deepEqual(limited.hits, bruteRegex(store, reference).slice(0, 3));
  assert.equal(limited.stoppedAtLimit, true);
});

Deno.test("scanRegex stops at its deadline and says which line it did not finish", async () => {
  const store = buildLineStore(randomDocuments(9, 100));
  const re = await regex("alpha", false, true);
  const range = documentRange(store, 40);
  // A deadline already past: not one engine call, the whole range left.
  const none = scanRegex(store, re, { range, limit: 1e9, deadline: performance.now() - 1 });
  assert.deepEqual(none, { hits: [], stoppedAtLimit: false, stoppedAtLine: range.from });
  // An engine that takes 5 ms a call, against a 30 ms deadline: it stops part of the way, with
  // every hit before the stop line found and none after it.
  const slow = {
    search(subject: Uint8Array) {
      const until = performance.now() + 5;
      while (performance.now() < until) { /* a slow engine */ }
      return re.search(subject);
    },
  };
  const all = scanRegex(store, re, { limit: 1e9 });
  const cut = scanRegex(store, slow, { limit: 1e9, deadline: performance.now() + 30 });
  assert.ok(cut.stoppedAtLine !== undefined && cut.stoppedAtLine < store.lineCount);
  assert.deepEqual(cut.hits, all.hits.filter((h) => h.line < cut.stoppedAtLine!));
  // A deadline that is not reached changes nothing.
  const later = scanRegex(store, re, { limit: 1e9, deadline: performance.now() + 60_000 });
  assert.deepEqual(later, all);
});

Deno.test("only the first 2000 characters of a line are searched, in both scans", async () => {
  const line = "x".repeat(2500) + "needle";
  const store = buildLineStore(docs(`needle early\n${line}\n${"y".repeat(1994)}needle`));
  const words = scanWords(store, ["needle"], { caseSensitive: false, limit: 10 });
  assert.deepEqual(words.hits, [{ line: 0, column: 0 }, { line: 2, column: 1994 }]);
  const re = await regex("needle$", false, true);
  assert.deepEqual(scanRegex(store, re, { limit: 10 }).hits, [{ line: 2, column: 1994 }]);
});

Deno.test("$ means the real end of a line: it does not match where a long line is cut", async () => {
  const cut = "x".repeat(2100) + " END";
  const store = buildLineStore(docs(`${cut}\n${"x".repeat(1500)}\né${"x".repeat(2500)}\nxx`));
  const re = await regex("^x+$", false, true);
  assert.deepEqual(scanRegex(store, re, { limit: 10 }).hits, [
    { line: 1, column: 0 },
    { line: 3, column: 0 },
  ]);
  // Nothing else can match the mark either: only the short lines end in x.
  const cases: Array<[string, number[]]> = [
    ["x\\z", [1, 3]],
    ["x[^y]$", [1, 3]],
    ["x(?s:.)$", [1, 3]],
    ["x\\W", []],
    ["x\\pC", []],
  ];
  for (const [pattern, lines] of cases) {
    const other = await regex(pattern, false, true);
    assert.deepEqual(
      scanRegex(store, other, { limit: 10 }).hits.map((h) => h.line),
      lines,
      pattern,
    );
  }
  const early = await regex("éx", false, true);
  assert.deepEqual(scanRegex(store, early, { limit: 10 }).hits, [{ line: 2, column: 0 }]);
  assert.deepEqual(cutLinesIn(store), 2);
});

Deno.test("columns count UTF-16 units after astral characters and growing lower case", async () => {
  // U+0130 lower-cases to two units; 😀 is two units but one code point.
  const store = buildLineStore(docs("İİ😀 find me\n😀😀x find"));
  const words = scanWords(store, ["find"], { caseSensitive: false, limit: 10 });
  assert.deepEqual(words.hits.map((h) => h.line), [0, 1]);
  assert.equal(words.hits[1].column, 6);
  const re = await regex("find", false, true);
  assert.deepEqual(scanRegex(store, re, { limit: 10 }).hits, [
    { line: 0, column: 5 },
    { line: 1, column: 6 },
  ]);
});

Deno.test("a lone surrogate does not hide the next character from the regex scan", async () => {
  const store = buildLineStore(docs("\uD800ab\nc\uDC00b"));
  const re = await regex("ab|cb", false, true);
  assert.deepEqual(scanRegex(store, re, { limit: 10 }).hits, [{ line: 0, column: 1 }]);
});

Deno.test("scanWords: a word's rare tail found without its head is not a match", () => {
  // "a" is common and "qz" rare here, so the scan looks for "qz" first: the
  // first "qz" stands after a space, the first whole "aqz" on the third line.
  const store = buildLineStore(docs("aaaa aaaa qz\naaaaaaaa a qz\nbaaqz aaaa qz aqz"));
  const found = scanWords(store, ["aqz"], { caseSensitive: true, limit: 10 });
  assert.deepEqual(found.hits.map((hit) => address(store, hit)), ["d0:3@2"]);
  const both = scanWords(store, ["aqz", "qz a"], { caseSensitive: true, limit: 10 });
  assert.deepEqual(both.hits.map((hit) => address(store, hit)), ["d0:3@2"]);
});

/**
 * Text for the byte-scan differential: ASCII letters of both cases, the two
 * characters whose lower case is ASCII (İ, Kelvin sign), other non-ASCII,
 * lines cut at 2000 characters with words across the cut, CRLF.
 */
function mixedDocuments(seed: number, count: number): Document[] {
  const random = prng(seed);
  const pieces = ["a", "b", "k", "A", "B", "K", "i", "I", " ", "ab", "AB", "ka", "\t", "é", "😀"];
  const rare = ["İ", "\u212a"];
  const texts: string[] = [];
  for (let d = 0; d < count; d++) {
    const lines: string[] = [];
    const n = 1 + Math.floor(random() * 8);
    for (let l = 0; l < n; l++) {
      let line = random() < 0.04 ? "x".repeat(1996 + Math.floor(random() * 4)) : "";
      const length = Math.floor(random() * 30);
      for (let p = 0; p < length; p++) {
        line += random() < 0.01
          ? rare[Math.floor(random() * 2)]
          : pieces[Math.floor(random() * pieces.length)];
      }
      lines.push(line + (random() < 0.1 ? "\r" : ""));
    }
    texts.push(lines.join("\n"));
  }
  return docs(...texts);
}

const MIXED_WORDS = [
  "a",
  "b",
  "ab",
  "ba",
  "k",
  "ka",
  "ak",
  "i",
  "ik",
  "AB",
  "Ka",
  "bab",
  "abk",
  "xa",
  "aaaa",
  "x\tk",
  "é",
  "i\u0307",
  "😀",
  // The longest word the byte scan takes, and one byte more (the string form then).
  "x".repeat(31) + "a",
  "x".repeat(32) + "a",
];

/** The reference: each scanned line alone, lower-cased with lowerForScan; UTF-16 columns. */
function referenceWords(
  store: LineStore,
  needles: string[],
  caseSensitive: boolean,
  range: { from: number; to: number },
): LineHit[] {
  const hits: LineHit[] = [];
  for (let line = range.from; line < range.to; line++) {
    const text = caseSensitive ? scanned(store, line) : lowerForScan(scanned(store, line));
    const at = needles.map((w) => text.indexOf(w));
    if (at.every((i) => i >= 0)) hits.push({ line, column: Math.min(...at) });
  }
  return hits;
}

Deno.test("scanWords on the byte form gives the lines, columns and limits of a line-by-line reference", () => {
  const documents = mixedDocuments(21, 300);
  for (const segmentChars of [undefined, 64, 300, 5000]) {
    const store = buildLineStore(documents, { segmentChars });
    const random = prng(23);
    for (let q = 0; q < 150; q++) {
      const words = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => MIXED_WORDS[Math.floor(random() * MIXED_WORDS.length)],
      );
      const caseSensitive = random() < 0.3;
      // Now and then an upper-case needle in a case-insensitive search: it never matches.
      const needles = caseSensitive || random() < 0.1 ? words : words.map(lowerForScan);
      const doc = Math.floor(random() * documents.length);
      const range = random() < 0.3 ? documentRange(store, doc) : { from: 0, to: store.lineCount };
      const limit = [1, 2, 7, 1e9][Math.floor(random() * 4)];
      const want = referenceWords(store, needles, caseSensitive, range);
      const got = scanWords(store, needles, { caseSensitive, range, limit });
      const what = `${
        JSON.stringify(needles)
      } case-sensitive=${caseSensitive} segmentChars=${segmentChars}`;
      assert.deepEqual(got.hits, want.slice(0, limit), what);
      assert.equal(got.stoppedAtLimit, want.length > limit, what);
    }
  }
});

Deno.test("an ASCII word search reads the byte form only, unless İ or the Kelvin sign is in a segment", () => {
  const plain = buildLineStore(docs("Alpha beta\nGAMMA é 😀 alpha", "more alpha"));
  const found = scanWords(plain, ["alpha"], { caseSensitive: false, limit: 10 });
  assert.deepEqual(found.hits, [{ line: 0, column: 0 }, { line: 1, column: 11 }, {
    line: 2,
    column: 5,
  }]);
  assert.equal(plain.forms.lower, undefined);
  assert.equal(plain.forms.exact, undefined);
  for (const odd of ["İ", "\u212a"]) {
    const store = buildLineStore(docs(`${odd}x alpha`, "alpha"), { segmentChars: 10 });
    // "İ" lower-cases to "i̇" (two units), which moves the column; the Kelvin sign to "k".
    const column = odd === "İ" ? 4 : 3;
    const hits = scanWords(store, ["alpha"], { caseSensitive: false, limit: 10 }).hits;
    assert.deepEqual(hits, [{ line: 0, column }, { line: 1, column: 0 }]);
    assert.notEqual(
      store.forms.lower,
      undefined,
      "the segment holding it uses the lower-case form",
    );
    const k = scanWords(store, ["kx"], { caseSensitive: false, limit: 10 }).hits;
    assert.deepEqual(k, odd === "İ" ? [] : [{ line: 0, column: 0 }]);
  }
});
