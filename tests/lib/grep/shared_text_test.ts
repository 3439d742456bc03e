import assert from "node:assert/strict";
import { documentText, SCAN_CHARS } from "../../../lib/grep/shared_text.ts";
import { buildSharedText, SharedTextBuilder } from "../../../lib/grep/shared_text_builder.ts";
import {
  buildLineStore,
  lineAddress,
  lineStore,
  lineText,
  lineTexts,
  prepareLineStore,
  useSharedText,
} from "../../../lib/grep/line_store.ts";
import type { Document } from "../../../lib/types.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";

function docs(texts: readonly string[]): Document[] {
  return texts.map((text, i) => ({ id: `d${i}`, title: `d${i}`, text, source: `d${i}.txt` }));
}

/** Texts with every case the shared form must carry back exactly. */
function hostileTexts(seed: number, count: number): string[] {
  const random = prng(seed);
  const pieces = [
    "plain words",
    "\r\n",
    "\n",
    "\r",
    "é",
    "😀",
    "İ",
    "\u212a",
    "\uD800",
    "\uDC00",
    "x".repeat(1999),
    "y".repeat(2001),
    "",
    "\n\n",
    "tail\r",
  ];
  return Array.from({ length: count }, () => {
    let text = "";
    const n = Math.floor(random() * 8);
    for (let i = 0; i < n; i++) text += pieces[Math.floor(random() * pieces.length)];
    if (random() < 0.2) {
      // A surrogate pair split by the cut at SCAN_CHARS.
      text += "a".repeat(SCAN_CHARS - 1) + "😀" + "b".repeat(5);
    }
    return text;
  });
}

/** The lines of a text as the line store defines them: split on \n, a trailing \r dropped. */
function referenceLines(text: string): string[] {
  return text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

Deno.test("every document's exact text comes back from the shared form", () => {
  for (const seed of [1, 2, 3]) {
    const texts = hostileTexts(seed, 300);
    for (const segmentChars of [undefined, 50, 5000]) {
      const shared = buildSharedText(docs(texts), { segmentChars });
      assert.equal(shared.documents, texts.length);
      for (const [d, text] of texts.entries()) {
        assert.equal(documentText(shared, d), text, `seed ${seed} document ${d}`);
      }
    }
  }
});

Deno.test("the line store's lines, starts and lengths are those of the original text", () => {
  const texts = hostileTexts(4, 400);
  for (const segmentChars of [undefined, 64]) {
    const store = buildLineStore(docs(texts), { segmentChars });
    let line = 0;
    for (const [d, text] of texts.entries()) {
      let offset = 0;
      const pieces = text.split("\n");
      for (const [i, want] of referenceLines(text).entries()) {
        assert.deepEqual(lineAddress(store, line), { doc: d, lineNumber: i + 1 });
        assert.equal(store.lineStart[line], offset);
        assert.equal(store.lineLength[line], want.length);
        assert.equal(lineText(store, line), want, `document ${d} line ${i + 1}`);
        offset += pieces[i].length + 1;
        line++;
      }
      const from = store.docFirstLine[d];
      assert.deepEqual(lineTexts(store, from, store.docFirstLine[d + 1]), referenceLines(text));
    }
    assert.equal(line, store.lineCount);
  }
});

Deno.test("the builder written a slice at a time equals the one written at once", () => {
  const texts = hostileTexts(5, 500);
  const once = buildSharedText(docs(texts), { segmentChars: 300 });
  const builder = new SharedTextBuilder(docs(texts), { segmentChars: 300 });
  let slices = 0;
  // A deadline already past: each step writes one batch of documents.
  while (!builder.step(0)) slices++;
  assert.ok(slices > 1);
  const sliced = builder.result();
  assert.equal(sliced.segments.length, once.segments.length);
  for (const [s, segment] of sliced.segments.entries()) {
    const other = once.segments[s];
    assert.deepEqual(
      new Uint8Array(segment.memory.buffer, 0, segment.length),
      new Uint8Array(other.memory.buffer, 0, other.length),
    );
  }
  for (const [d, text] of texts.entries()) assert.equal(documentText(sliced, d), text);
});

Deno.test("a line store over a shared text built elsewhere equals one built from the strings", async () => {
  const texts = hostileTexts(6, 200);
  const shared = buildSharedText(docs(texts));
  // The worker's corpus: documents whose text it does not hold, and the shared text.
  const corpus = { documents: docs(texts.map(() => "")), tables: [] };
  useSharedText(corpus, shared);
  const prepared = await prepareLineStore(corpus, { sliceMs: 0 });
  assert.equal(lineStore(corpus), prepared);
  const direct = buildLineStore(docs(texts));
  assert.equal(prepared.lineCount, direct.lineCount);
  assert.deepEqual(prepared.lineStart, direct.lineStart);
  assert.deepEqual(prepared.lineLength, direct.lineLength);
  for (let line = 0; line < direct.lineCount; line++) {
    assert.equal(lineText(prepared, line), lineText(direct, line));
  }
});

Deno.test("a shared text for another number of documents is refused", () => {
  const shared = buildSharedText(docs(["a", "b"]));
  assert.throws(() => useSharedText({ documents: docs(["a"]), tables: [] }, shared), {
    name: "RangeError",
    message: "shared text of 2 documents for a corpus of 1",
  });
});

Deno.test("making a builder reads no document; a step past its deadline reads a few segments, not the corpus", () => {
  let reads = 0;
  const texts = Array.from({ length: 500 }, (_, i) => `document ${i}: ${"word ".repeat(i % 40)}`);
  const counted = texts.map((text) => ({
    get text() {
      reads++;
      return text;
    },
  }));
  // Segments of about 2,000 units: a few dozen documents each.
  const builder = new SharedTextBuilder(counted, { segmentChars: 2000 });
  assert.equal(reads, 0, "the constructor reads no document");
  assert.equal(builder.step(-Infinity), false);
  // 32 documents written, and the segments they fall in sized (a read each): far from all 500.
  assert.ok(reads >= 32 && reads < 150, `${reads} reads after one step`);
  while (!builder.step(-Infinity));
  const whole = buildSharedText(docs(texts), { segmentChars: 2000 });
  const sliced = builder.result();
  assert.equal(sliced.segments.length, whole.segments.length);
  assert.deepEqual(
    sliced.segments.map((s) => [s.firstDoc, s.docEnd, s.length]),
    whole.segments.map((s) => [s.firstDoc, s.docEnd, s.length]),
  );
  for (let d = 0; d < texts.length; d++) assert.equal(documentText(sliced, d), texts[d]);
});
