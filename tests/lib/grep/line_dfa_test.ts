import assert from "node:assert/strict";
import { join } from "node:path";
import { buildLineStore, type LineStore } from "../../../lib/grep/line_store.ts";
import { scanRegex } from "../../../lib/grep/regex_scan.ts";
import { compileRegex, type Re2Regex } from "../../../lib/regex/re2.ts";
import { lineAutomaton } from "../../../lib/regex/re2_automaton.ts";
import { LineDfa } from "../../../lib/grep/line_dfa.ts";
import { toRe2Syntax } from "../../../lib/regex/re2_syntax.ts";
import { requiredLiterals } from "../../../lib/regex/re2_prefilter.ts";
import type { Document } from "../../../lib/types.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";
import { ROOT } from "../../support/cli.ts";
import { randomLine, randomPattern } from "../regex/random_regex.ts";

/** Random documents of random lines, some of them over 2000 characters (cut), some ending in CR. */
function randomDocuments(seed: number, count: number): Document[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, d) => {
    const lines = Array.from({ length: 1 + Math.floor(random() * 10) }, () => {
      if (random() < 0.02) return randomLine(random, false).repeat(300);
      return randomLine(random, random() < 0.5) + (random() < 0.1 ? "\r" : "");
    });
    return { id: `d${d}`, title: `d${d}`, text: lines.join("\n"), source: `d${d}.txt` };
  });
}

async function regex(pattern: string, caseSensitive: boolean): Promise<Re2Regex | null> {
  const compiled = await compileRegex(pattern, { caseSensitive, lineMode: true });
  return compiled.ok ? compiled.regex : null;
}

function hits(store: LineStore, re: Re2Regex, options: Parameters<typeof scanRegex>[2]): string[] {
  return scanRegex(store, re, options).hits.map((h) => `${h.line}@${h.column}`);
}

Deno.test("a regex scan with the line automaton finds the same lines and columns as RE2 alone", async () => {
  const documents = randomDocuments(21, 300);
  const random = prng(22);
  let compared = 0;
  let found = 0;
  let withLiterals = 0;
  for (
    const store of [buildLineStore(documents), buildLineStore(documents, { segmentChars: 700 })]
  ) {
    for (let p = 0; p < 250; p++) {
      const pattern = randomPattern(random);
      const caseSensitive = random() < 0.5;
      const re = await regex(pattern, caseSensitive);
      if (re === null) continue;
      const automaton = lineAutomaton(toRe2Syntax(pattern), caseSensitive);
      assert.notEqual(automaton, null, pattern);
      const from = random() < 0.3 ? Math.floor(random() * store.lineCount) : 0;
      const range = {
        from,
        to: from === 0 ? store.lineCount : Math.min(store.lineCount, from + 80),
      };
      const want = hits(store, re, { range, limit: 1e9 });
      assert.deepEqual(hits(store, re, { range, limit: 1e9, automaton }), want, pattern);
      // With the literal prefilter too, as corpus_grep runs it.
      const prefilter = requiredLiterals(toRe2Syntax(pattern), caseSensitive);
      if (prefilter !== null) {
        assert.deepEqual(
          hits(store, re, { range, limit: 1e9, automaton, prefilter }),
          want,
          pattern,
        );
        withLiterals++;
      }
      compared++;
      found += want.length;
    }
  }
  assert.ok(
    compared > 300 && found > 5_000 && withLiterals > 100,
    `${compared} patterns (${withLiterals} with literals), ${found} hits`,
  );
});

Deno.test("the DFA stops filtering when its state budget runs out, and the scan stays exact", async () => {
  const random = prng(5);
  const text = Array.from(
    { length: 300 },
    () => Array.from({ length: 60 }, () => (random() < 0.5 ? "a" : "b")).join(""),
  ).join("\n");
  const store = buildLineStore([{ id: "ab", title: "ab", text, source: "ab.txt" }]);
  const pattern = "(a|b)*a(a|b){12}b$";
  const re = (await regex(pattern, true))!;
  const automaton = lineAutomaton(pattern, true)!;
  const want = hits(store, re, { limit: 1e9 });
  assert.ok(want.length > 50);
  assert.deepEqual(hits(store, re, { limit: 1e9, automaton }), want);

  const bytes = new TextEncoder().encode(text);
  const offsets = Uint32Array.from([0, ...[...text.matchAll(/\n/g)].map((m) => m.index! + 1)]);
  const ends = Uint32Array.of(...offsets, bytes.length + 1);
  const small = new LineDfa(automaton, { maxStates: 64 });
  assert.equal(small.firstCandidate(bytes, ends, 0, 300) < 300, true);
  assert.equal(small.exhausted, true);
  // From then on every line is a candidate.
  assert.equal(small.firstCandidate(bytes, ends, 7, 300), 7);
  const poor = new LineDfa(automaton, { maxWork: 10_000 });
  poor.firstCandidate(bytes, ends, 0, 300);
  assert.equal(poor.exhausted, true);
  // The default budget too: unbounded, such a DFA adds a state for nearly every byte (measured
  // with [a-z]*[ac-l][a-z]{20}$: 163 MB for 100 KB of text), so memory would grow with the corpus.
  const defaults = new LineDfa(automaton);
  for (let line = 0; line < 300 && !defaults.exhausted;) {
    line = defaults.firstCandidate(bytes, ends, line, 300) + 1;
  }
  assert.equal(defaults.exhausted, true);
});

Deno.test("corpus_grep answers hostile literal-free regexes correctly within a bounded subprocess", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-raw-imports",
      `--allow-read=${ROOT}`,
      join(ROOT, "tests/fixtures/retrieval/grep_hostile.ts"),
    ],
    stdout: "piped",
    stderr: "piped",
    // About 8 s of CPU: the guard only stops a hang, with room for a machine whose cores are busy.
    signal: AbortSignal.timeout(180_000),
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const lines = new TextDecoder().decode(output.stdout).trim().split("\n").map((l) =>
    JSON.parse(l) as { pattern: string; first: string; expected: number }
  );
  assert.equal(lines.length, 6);
  for (const { pattern, first, expected } of lines) {
    const count = /^Showing 5 of (\d+) matching lines/.exec(first)?.[1] ??
      (first.startsWith("No line") ? "0" : first);
    assert.equal(Number(count), expected, `${pattern}: ${first}`);
  }
});
