import assert from "node:assert/strict";
import { requiredLiterals } from "../../../lib/regex/re2_prefilter.ts";
import { toRe2Syntax } from "../../../lib/regex/re2_syntax.ts";
import { compileRegex, type Re2Regex } from "../../../lib/regex/re2.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";

Deno.test("requiredLiterals finds the text every match must contain", () => {
  const cases: Array<{ pattern: string; cs?: boolean; want: string[][] | null }> = [
    { pattern: "hello", want: [["hello"]] },
    { pattern: "Hello", cs: true, want: [["hello"]] },
    {
      pattern: "\\bqu[a-z]*ka\\d+\\b",
      want: [["qu"], ["ka0", "ka1", "ka2", "ka3", "ka4", "ka5", "ka6", "ka7", "ka8", "ka9"]],
    },
    { pattern: "foo|bar", want: [["bar", "foo"]] },
    { pattern: "(foo|bar)baz", want: [["barbaz", "foobaz"]] },
    { pattern: "colou?r", want: [["color", "colour"]] },
    { pattern: "ab+c", want: [["ab"], ["bc"]] },
    { pattern: "x*", want: null },
    { pattern: "a.c", want: [["a"], ["c"]] },
    {
      pattern: "[0-9]{4}-[0-9]{2}",
      want: [["0-", "1-", "2-", "3-", "4-", "5-", "6-", "7-", "8-", "9-"]],
    },
    // Case-insensitive s also matches U+017F, which lower-casing keeps: s is not required.
    { pattern: "mass", want: [["ma"]] },
    { pattern: "mass", cs: true, want: [["mass"]] },
    { pattern: "k", want: [["k"]] },
    { pattern: "café", want: [["caf"]] },
    { pattern: "\\Qa.b\\E", want: [["a.b"]] },
    { pattern: "a\\.b", want: [["a.b"]] },
    { pattern: "(?i)abc", want: null },
    { pattern: "a{,2}", want: null },
    { pattern: "[^a]bc", want: [["bc"]] },
    { pattern: "\\w+ing", want: [["ing"]] },
    { pattern: "(?:ab|\\w)c", want: [["c"]] },
    { pattern: "(ab)+c", want: [["abc"]] },
    { pattern: "ab{2,}c", want: [["ab"], ["bc"]] },
    { pattern: "(?P<x>ab)c", want: [["abc"]] },
    // An escape's letters and digits are not text to look for.
    { pattern: "\\x41", want: [["a"]] },
    { pattern: "\\x{42}c", cs: true, want: [["bc"]] },
    { pattern: "\\pN", want: null },
    { pattern: "\\PLx", want: [["x"]] },
    { pattern: "\\p{Greek}x", want: [["x"]] },
  ];
  for (const c of cases) {
    assert.deepEqual(requiredLiterals(c.pattern, c.cs ?? false), c.want, c.pattern);
  }
});

/** Code points RE2 matches case-insensitively for `letter`, found by scanning every one. */
async function foldOrbit(re: Re2Regex, subjects: Uint8Array[], points: number[][]) {
  const found: number[] = [];
  const encoder = new TextEncoder();
  for (let s = 0; s < subjects.length; s++) {
    let offset = 0;
    let subject = subjects[s];
    while (true) {
      const match = re.search(subject);
      if (match === null) break;
      found.push(points[s][offset + match.index]);
      offset += match.index + 1;
      subject = encoder.encode(String.fromCodePoint(...points[s].slice(offset)));
    }
  }
  return await Promise.resolve(found);
}

Deno.test("only s has a case-folding partner that lower-casing misses (checked on all of Unicode)", async () => {
  const encoder = new TextEncoder();
  const points: number[][] = [];
  for (let base = 0; base < 0x110000; base += 0x8000) {
    const chunk: number[] = [];
    for (let cp = base; cp < base + 0x8000; cp++) {
      if ((cp < 0xd800 || cp > 0xdfff) && cp !== 10) chunk.push(cp);
    }
    points.push(chunk);
  }
  const subjects = points.map((chunk) => encoder.encode(String.fromCodePoint(...chunk)));
  const missed: string[] = [];
  for (const letter of "abcdefghijklmnopqrstuvwxyz") {
    const compiled = await compileRegex(letter);
    assert.ok(compiled.ok);
    const orbit = await foldOrbit(compiled.regex, subjects, points);
    for (const cp of orbit) {
      if (!String.fromCodePoint(cp).toLowerCase().includes(letter)) {
        missed.push(`${letter}:U+${cp.toString(16).toUpperCase()}`);
      }
    }
  }
  assert.deepEqual(missed, ["s:U+17F"]);
});

const ATOMS = [
  "a",
  "b",
  "k",
  "s",
  "S",
  "K",
  "é",
  "1",
  " ",
  ".",
  "\\d",
  "\\w",
  "[ab]",
  "[a-c]",
  "[^a]",
  "\\b",
  "^",
  "$",
  "\\.",
  "[sk]",
  "\\s",
  "x",
];
const LINE_CHARS = [
  "a",
  "b",
  "k",
  "s",
  "S",
  "K",
  "A",
  "B",
  "é",
  "É",
  "1",
  "2",
  " ",
  ".",
  "x",
  "\u017f",
  "\u212a",
  "\u0130",
  "😀",
];

function randomPattern(random: () => number, depth = 0): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(random() * 4);
  for (let i = 0; i < n; i++) {
    let atom = random() < 0.2 && depth < 2
      ? `(${randomPattern(random, depth + 1)}${
        random() < 0.4 ? `|${randomPattern(random, depth + 1)}` : ""
      })`
      : ATOMS[Math.floor(random() * ATOMS.length)];
    const q = random();
    if (q < 0.1) atom += "*";
    else if (q < 0.2) atom += "+";
    else if (q < 0.3) atom += "?";
    else if (q < 0.35) atom += "{1,2}";
    parts.push(atom);
  }
  return parts.join("");
}

Deno.test("requiredLiterals is sound: every line RE2 matches holds a string of every set", async () => {
  const random = prng(11);
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) {
    const length = 1 + Math.floor(random() * 12);
    let line = "";
    for (let c = 0; c < length; c++) line += LINE_CHARS[Math.floor(random() * LINE_CHARS.length)];
    lines.push(line);
  }
  let checked = 0;
  for (let p = 0; p < 600; p++) {
    const pattern = randomPattern(random);
    const caseSensitive = random() < 0.5;
    const sets = requiredLiterals(toRe2Syntax(pattern), caseSensitive);
    if (sets === null) continue;
    const compiled = await compileRegex(pattern, { caseSensitive });
    if (!compiled.ok) continue;
    for (const line of lines) {
      if (!compiled.regex.test(line)) continue;
      checked++;
      const lower = line.toLowerCase();
      for (const set of sets) {
        assert.ok(
          set.some((s) => lower.includes(s)),
          `/${pattern}/${caseSensitive ? "" : "i"} matches ${JSON.stringify(line)} ` +
            `without any of ${JSON.stringify(set)}`,
        );
      }
    }
  }
  assert.ok(checked > 1000, `only ${checked} matching lines checked`);
});
