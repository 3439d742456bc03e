import assert from "node:assert/strict";
import {
  buildLineStore,
  documentRange,
  lineAddress,
  lineStore,
  lineText,
} from "../../../lib/retrieval/line_store.ts";
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
