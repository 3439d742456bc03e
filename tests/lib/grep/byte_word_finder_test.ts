import assert from "node:assert/strict";
import {
  byteSearchable,
  ByteWordFinder,
  sampledOccurrences,
} from "../../../lib/grep/byte_word_finder.ts";
import { MAX_WORD_BYTES } from "../../../lib/grep/grep_kernel.ts";
import { buildLineStore, byteSegments } from "../../../lib/grep/line_store.ts";
import type { Document } from "../../../lib/types.ts";

function segmentOf(text: string) {
  const documents: Document[] = [{ id: "d", title: "d", text, source: "d.txt" }];
  return byteSegments(buildLineStore(documents))[0];
}

/** Every start of `word` in `text` at or after `from` that ends by `end`, by indexOf. */
function starts(text: string, word: string, end: number): number[] {
  const out: number[] = [];
  for (
    let at = text.indexOf(word);
    at >= 0 && at + word.length <= end;
    at = text.indexOf(word, at + 1)
  ) {
    out.push(at);
  }
  return out;
}

Deno.test("find returns each start in turn, also when asked again from an earlier position", () => {
  const text = "xx abc yy ABC abcabc zz aBc";
  const segment = segmentOf(text);
  const finder = new ByteWordFinder(segment, "abc", { caseSensitive: false, end: text.length });
  const lower = text.toLowerCase();
  const all = starts(lower, "abc", text.length);
  assert.deepEqual(all, [3, 10, 14, 17, 24]);
  for (const at of all) assert.equal(finder.find(at), at);
  // Backwards: the finder starts its scan again rather than skip what it passed over.
  assert.equal(finder.find(0), 3);
  assert.equal(finder.find(11), 14);
  assert.equal(finder.find(20), 24);
  assert.equal(finder.find(12), 14);
  assert.equal(finder.find(25), -1);
  const exact = new ByteWordFinder(segment, "abc", { caseSensitive: true, end: text.length });
  assert.equal(exact.find(4), 14);
});

Deno.test("a word must end by the given end", () => {
  const text = "one abc two abc";
  const segment = segmentOf(text);
  assert.equal(new ByteWordFinder(segment, "abc", { caseSensitive: true, end: 14 }).find(5), -1);
  assert.equal(new ByteWordFinder(segment, "abc", { caseSensitive: true, end: 15 }).find(5), 12);
  assert.equal(new ByteWordFinder(segment, "abc", { caseSensitive: true, end: 999 }).find(5), 12);
});

Deno.test("a word is found after thousands of lines full of its pair bytes", () => {
  // "a" is everywhere (lines of 1000, under the 2000-character cut); "ab" only on the last line.
  const head = ("a".repeat(1000) + "\n").repeat(5);
  const text = head + "ab" + "a".repeat(50) + "AB";
  const segment = segmentOf(text);
  const finder = new ByteWordFinder(segment, "ab", { caseSensitive: false, end: text.length });
  assert.equal(finder.find(0), head.length);
  assert.equal(finder.find(head.length + 1), text.length - 2);
  // A one-letter word: every "a" is a candidate and a match.
  const one = new ByteWordFinder(segment, "a", { caseSensitive: true, end: text.length });
  for (const at of [0, 1, 31, 32, 999, 3005, head.length + 2]) {
    assert.equal(one.find(at), at);
  }
  assert.equal(one.find(1000), 1001);
  assert.equal(one.find(text.length - 2), -1);
});

Deno.test("a case-insensitive word with an upper-case letter never matches, as in lower-cased text", () => {
  const segment = segmentOf("ABC abc");
  assert.equal(new ByteWordFinder(segment, "aBc", { caseSensitive: false, end: 7 }).find(0), -1);
  assert.equal(new ByteWordFinder(segment, "aBc", { caseSensitive: true, end: 7 }).find(0), -1);
  assert.equal(new ByteWordFinder(segment, "ABC", { caseSensitive: true, end: 7 }).find(0), 0);
});

Deno.test("only non-empty ASCII words without a newline of at most 32 bytes are byte-searchable", () => {
  assert.equal(byteSearchable("a\tb~"), true);
  assert.equal(byteSearchable("a".repeat(MAX_WORD_BYTES)), true);
  for (const word of ["", "é", "a\nb", "😀", "\u0130", "a".repeat(MAX_WORD_BYTES + 1)]) {
    assert.equal(byteSearchable(word), false, word.slice(0, 10));
  }
  const segment = segmentOf("é");
  assert.throws(() => new ByteWordFinder(segment, "é", { caseSensitive: true, end: 2 }), {
    name: "RangeError",
    message:
      `ByteWordFinder needs a non-empty ASCII word without \\n of at most ${MAX_WORD_BYTES} bytes`,
  });
});

Deno.test("sampled occurrences count the word, not its rarest letter, and scale to the segment", () => {
  // "q" is rarer than "k" here, yet "qu" is on every line and "ka" on one in fifty.
  const lines = Array.from(
    { length: 5000 },
    (_, i) => `the quiet question ${i % 50 === 0 ? "kayak" : "kkk"} line`,
  );
  const small = segmentOf(lines.slice(0, 100).join("\n"));
  // A segment smaller than the windows is counted whole: exact.
  assert.equal(sampledOccurrences(small, "qu"), 200);
  assert.equal(sampledOccurrences(small, "ka"), 2);
  const large = segmentOf(lines.join("\n"));
  const qu = sampledOccurrences(large, "qu");
  const ka = sampledOccurrences(large, "ka");
  assert.ok(qu > 50 * ka, `qu ${qu}, ka ${ka}`);
  assert.ok(Math.abs(qu - 10_000) < 1000, `qu ${qu}`);
});
