import assert from "node:assert/strict";
import {
  buildLineStore,
  lineText,
  lowerForScan,
  SCAN_CHARS,
} from "../../../lib/grep/line_store.ts";
import { literalFilter } from "../../../lib/grep/literal_filter.ts";
import type { Document } from "../../../lib/types.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";

const WORDS = [
  "qu",
  "ka",
  "quka",
  "KA",
  "ka1",
  "Ka2x",
  "xka3",
  "flow",
  "Flow",
  "x",
  "boundary",
  "layer",
  "é",
  "İ",
  "\u212a",
];

function randomDocuments(seed: number, count: number, special: boolean): Document[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, d) => {
    const lines = Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
      const n = Math.floor(random() * 12);
      const words = Array.from({ length: n }, () => {
        const w = WORDS[Math.floor(random() * (special ? WORDS.length : WORDS.length - 3))];
        return random() < 0.3 ? w.toUpperCase() : w;
      });
      // Now and then a line past the scanned 2000 characters, with a word after the cut.
      return random() < 0.03 ? "z ".repeat(SCAN_CHARS / 2) + " quka" : words.join(" ");
    });
    return { id: `d${d}`, title: `d${d}`, text: lines.join("\n"), source: `d${d}.txt` };
  });
}

/** The lines whose scanned, lower-cased text holds a string of every set. */
function reference(
  store: ReturnType<typeof buildLineStore>,
  sets: string[][],
  from: number,
  to: number,
): number[] {
  const out: number[] = [];
  for (let line = from; line < to; line++) {
    const text = lowerForScan(lineText(store, line).slice(0, SCAN_CHARS).toWellFormed());
    if (sets.every((set) => set.some((s) => text.includes(s)))) out.push(line);
  }
  return out;
}

Deno.test("the literal filter lets through exactly the lines holding a string of every set", () => {
  const random = prng(9);
  const literals = ["qu", "ka", "quka", "flow", "x", "boundary", "layer", "ayer", "a".repeat(40)];
  // Sets whose strings share a prefix or a suffix: searched by the shared piece, each find checked.
  const shared = [["ka0", "ka1", "ka2", "ka3"], ["1ka", "3ka", "xka"], ["quka", "qux"], [
    "ka1",
    "ka",
  ]];
  for (const special of [false, true]) {
    const store = buildLineStore(randomDocuments(special ? 2 : 1, 400, special), {
      segmentChars: 3000,
    });
    for (let round = 0; round < 60; round++) {
      const sets = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () =>
          random() < 0.4 ? shared[Math.floor(random() * shared.length)] : Array.from(
            { length: 1 + Math.floor(random() * 3) },
            () => literals[Math.floor(random() * literals.length)],
          ),
      );
      for (let s = 0; s + 1 < store.segmentStarts.length; s++) {
        const first = store.segmentStarts[s];
        const count = store.segmentStarts[s + 1] - first;
        const filter = literalFilter(
          store,
          s,
          sets,
          (["cheaper", "always", "never"] as const)[round % 3],
        );
        const got: number[] = [];
        for (let line = filter.next(0, count); line < count; line = filter.next(line + 1, count)) {
          got.push(first + line);
        }
        // A filter may let through more lines only for strings it searched by their start.
        const want = reference(store, sets, first, first + count);
        const truncated = sets.map((set) => set.map((w) => w.slice(0, 32)));
        assert.deepEqual(got, reference(store, truncated, first, first + count));
        assert.ok(want.every((line) => got.includes(line)), JSON.stringify(sets));
      }
    }
  }
});
