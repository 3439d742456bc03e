import assert from "node:assert/strict";
import {
  buildLineStore,
  byteSegments,
  CUT_MARK,
  documentRange,
  isCut,
  lineAddress,
  type LineStore,
  lineStore,
  lineText,
  SCAN_CHARS,
} from "../../../lib/grep/line_store.ts";
import type { Document } from "../../../lib/types.ts";
import { corpusOf } from "../../support/tool_context.ts";

function docs(...texts: string[]): Document[] {
  return texts.map((text, i) => ({ id: `d${i}`, title: `d${i}`, text, source: `d${i}.txt` }));
}

Deno.test("lines split on \\n, drop a trailing \\r and are numbered from 1 in each document", () => {
  const store = buildLineStore(docs("one\r\ntwo\n\nfour", "", "x\n"));
  assert.equal(store.lineCount, 7);
  const lines = Array.from({ length: store.lineCount }, (_, i) => {
    const { doc, lineNumber } = lineAddress(store, i);
    return `${doc}:${lineNumber}:${lineText(store, i)}`;
  });
  assert.deepEqual(lines, ["0:1:one", "0:2:two", "0:3:", "0:4:four", "1:1:", "2:1:x", "2:2:"]);
  assert.deepEqual(documentRange(store, 2), { from: 5, to: 7 });
});

Deno.test("lineStore builds once per corpus object", () => {
  const corpus = corpusOf([{ id: "a", text: "x" }]);
  assert.equal(lineStore(corpus), lineStore(corpus));
  assert.notEqual(lineStore(corpus), lineStore(corpusOf([{ id: "a", text: "x" }])));
});

/** The UTF-8 form of a segment built line by line: scanned text, the cut mark, `\n` between. */
function referenceBytes(store: LineStore, first: number, end: number) {
  const encoder = new TextEncoder();
  const parts: number[] = [];
  const byteOffsets: number[] = [];
  const pointOffsets: number[] = [];
  let points = 0;
  for (let line = first; line < end; line++) {
    byteOffsets.push(parts.length);
    pointOffsets.push(points);
    const text = lineText(store, line).slice(0, SCAN_CHARS).toWellFormed();
    parts.push(...encoder.encode(text), ...(isCut(store, line) ? [CUT_MARK] : []), 10);
    points += [...text].length + (isCut(store, line) ? 1 : 0) + 1;
  }
  byteOffsets.push(parts.length);
  pointOffsets.push(points);
  return { bytes: parts.slice(0, -1), byteOffsets, pointOffsets };
}

Deno.test("the UTF-8 form holds each scanned line, a cut line followed by CUT_MARK", () => {
  const long = "x".repeat(2100);
  const cases = [
    docs(`short\n${long}\nmid ${long}\nend`, long),
    docs(`é ${long}\n😀\n${"é".repeat(2100)}\nİ\u212a`, "ascii", "\uD800 lone"),
    docs("no cut here\nat all", "", "x"),
  ];
  for (const documents of cases) {
    for (const segmentChars of [undefined, 30, 2500]) {
      const store = buildLineStore(documents, { segmentChars });
      const segments = byteSegments(store);
      assert.equal(segments.length, store.segmentStarts.length - 1);
      for (const [s, segment] of segments.entries()) {
        const want = referenceBytes(store, store.segmentStarts[s], store.segmentStarts[s + 1]);
        assert.deepEqual([...segment.bytes], want.bytes);
        assert.deepEqual([...segment.byteOffsets], want.byteOffsets);
        assert.deepEqual([...segment.pointOffsets], want.pointOffsets);
        // The bytes are the data of the kernel's WebAssembly memory, not a copy.
        assert.equal(segment.bytes, segment.kernel.bytes);
      }
    }
  }
});
