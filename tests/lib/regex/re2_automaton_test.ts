import assert from "node:assert/strict";
import { compileRegex, type Re2Regex } from "../../../lib/regex/re2.ts";
import { lineAutomaton, MAX_NODES } from "../../../lib/regex/re2_automaton.ts";
import { LineDfa } from "../../../lib/grep/line_dfa.ts";
import { toRe2Syntax } from "../../../lib/regex/re2_syntax.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";
import { randomLine, randomPattern } from "./random_regex.ts";

const encoder = new TextEncoder();

/** Whether the automaton of `pattern` accepts `line` (one line, no "\n"). */
function accepts(dfa: LineDfa, line: string): boolean {
  const bytes = encoder.encode(line);
  return dfa.firstCandidate(bytes, Uint32Array.of(0, bytes.length + 1), 0, 1) === 0;
}

async function re2(pattern: string, caseSensitive: boolean): Promise<Re2Regex | null> {
  const compiled = await compileRegex(pattern, { caseSensitive, lineMode: true });
  return compiled.ok ? compiled.regex : null;
}

Deno.test("RE2's case folding takes exactly the Kelvin sign and the long s from outside ASCII into it", async () => {
  // code_set.ts's foldCase relies on this to keep a folded set's ASCII part exact.
  const regex = (await re2("[\\x00-\\x7f]", false))!;
  const found: number[] = [];
  const CHUNK = 50_000;
  for (let from = 0x80; from <= 0x10ffff; from += CHUNK) {
    const points: number[] = [];
    for (let c = from; c < Math.min(from + CHUNK, 0x110000); c++) {
      if (c < 0xd800 || c > 0xdfff) points.push(c);
    }
    let rest = points;
    while (true) {
      const match = regex.search(encoder.encode(String.fromCodePoint(...rest)));
      if (match === null) break;
      found.push(rest[match.index]);
      rest = rest.slice(match.index + 1);
    }
  }
  assert.deepEqual(found, [0x17f, 0x212a]);
});

Deno.test("the line automaton accepts every line RE2 matches, on 1,500 random patterns", async () => {
  const random = prng(11);
  let checked = 0;
  let refused = 0;
  let exactChecked = 0;
  for (let p = 0; p < 1500; p++) {
    const pattern = randomPattern(random);
    const caseSensitive = random() < 0.5;
    const regex = await re2(pattern, caseSensitive);
    if (regex === null) continue; // RE2 refuses it: corpus_grep never gets this far
    const nfa = lineAutomaton(toRe2Syntax(pattern), caseSensitive);
    if (nfa === null) {
      refused++;
      continue;
    }
    const dfa = new LineDfa(nfa);
    // Exact where nothing is approximated: case-sensitive, no \p, ASCII lines.
    const exact = caseSensitive && !/\\[pP]|\(\?i/.test(pattern);
    for (let l = 0; l < 40; l++) {
      const line = randomLine(random, l % 2 === 0);
      const matched: boolean = regex.search(encoder.encode(line)) !== null;
      const accepted = accepts(dfa, line);
      if (matched) {
        assert.ok(accepted, `/${pattern}/${caseSensitive ? "" : "i"} on ${JSON.stringify(line)}`);
      }
      if (exact && l % 2 === 0) {
        assert.equal(accepted, matched, `exact: /${pattern}/ on ${JSON.stringify(line)}`);
        exactChecked++;
      }
      checked++;
    }
  }
  // The generator must exercise the automaton, not only the refusals.
  assert.ok(refused < 50, `${refused} patterns refused`);
  assert.ok(checked > 30_000 && exactChecked > 7_000, `${checked} / ${exactChecked} lines checked`);
});

const cases: Array<{ pattern: string; caseSensitive: boolean; yes: string[]; no: string[] }> = [
  {
    pattern: "\\b[a-z]{12}\\b",
    caseSensitive: false,
    yes: ["see abcdefghijkl.", "ABCDEFGHIJKL", "abcdefghij\u212al", "x abcde\u017fghijkl"],
    no: ["abcdefghijklm", "abcdefghijk", "_abcdefghijkl", "abcdefghijkl9"],
  },
  { pattern: "^ab$", caseSensitive: true, yes: ["ab"], no: ["aab", "abb", "AB"] },
  { pattern: "(?i)k", caseSensitive: true, yes: ["K", "\u212a"], no: ["x"] },
  { pattern: "(?i)[^k]", caseSensitive: true, yes: ["x"], no: ["k", "K", ""] },
  { pattern: "\\Bx\\B", caseSensitive: true, yes: ["axa"], no: ["x", " x", "ax"] },
  { pattern: "a(?i:b)c", caseSensitive: true, yes: ["aBc"], no: ["ABc", "abC"] },
  { pattern: "(a(?i)b|c)", caseSensitive: true, yes: ["aB", "C"], no: ["Ab"] },
  { pattern: "x{2,3}y", caseSensitive: true, yes: ["xxy", "xxxxy"], no: ["xy"] },
  { pattern: "a{,3}", caseSensitive: true, yes: ["a{,3}"], no: ["aaa"] },
  { pattern: "\\Q.*\\E$", caseSensitive: true, yes: ["a.*"], no: ["a.*b", "ab"] },
  { pattern: "[[:^alpha:]]", caseSensitive: true, yes: ["1", "é"], no: ["ab"] },
  { pattern: "é+", caseSensitive: true, yes: ["café"], no: ["cafe", "É"] },
  { pattern: "\\x{1F600}", caseSensitive: true, yes: ["a😀"], no: ["a"] },
  { pattern: "", caseSensitive: true, yes: ["", "a"], no: [] },
  { pattern: "[^]a]", caseSensitive: true, yes: ["b"], no: ["]", "a", "]a]"] },
  { pattern: "[^-a]", caseSensitive: true, yes: ["b"], no: ["-", "a"] },
  { pattern: "[\\s-z]", caseSensitive: true, yes: ["-", " ", "z"], no: ["a", "y"] },
];

for (const c of cases) {
  Deno.test(`the line automaton of /${c.pattern}/${c.caseSensitive ? "" : "i"} accepts exactly its lines`, async () => {
    const regex = (await re2(c.pattern, c.caseSensitive))!;
    const dfa = new LineDfa(lineAutomaton(toRe2Syntax(c.pattern), c.caseSensitive)!);
    for (const line of c.yes) {
      assert.ok(regex.search(encoder.encode(line)) !== null, `RE2 on ${line}`);
      assert.ok(accepts(dfa, line), line);
    }
    for (const line of c.no) {
      assert.equal(regex.search(encoder.encode(line)), null, `RE2 on ${line}`);
      assert.ok(!accepts(dfa, line), line);
    }
  });
}

Deno.test("the line automaton gives up on syntax it does not model and on huge expansions", () => {
  assert.equal(lineAutomaton("\\01", true), null);
  assert.equal(lineAutomaton("a(", true), null);
  assert.equal(lineAutomaton(`(?:ab{1000}){${Math.ceil(MAX_NODES / 1000)}}`, true), null);
  assert.notEqual(lineAutomaton("(?:ab{1000}){2}", true), null);
});
