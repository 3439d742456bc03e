import assert from "node:assert/strict";
import { passagesOf } from "../../../lib/lexical/passages.ts";
import { chunkCorpus } from "../../../lib/lexical/chunking.ts";
import { joinPages } from "../../../lib/data/formats/document_file.ts";
import type { Document } from "../../../lib/types.ts";

function pagedDoc(pages: string[]): Document {
  const { text, pages: starts } = joinPages(pages);
  return { id: "manual", title: "Manual", text, source: "manual.pdf", pages: starts };
}

const words = (n: number, word: string) => Array.from({ length: n }, () => word).join(" ") + ".";

Deno.test("passages of a paged document never span two pages and carry their page", () => {
  const doc = pagedDoc(["Short first page.", "", words(300, "tide"), "Last page."]);
  const passages = passagesOf([doc]);
  assert.deepEqual(passages.map((p) => [p.id, p.index, p.page]), [
    ["manual#0", 0, 1],
    ["manual#1", 1, 3],
    ["manual#2", 2, 3],
    ["manual#3", 3, 4],
  ]);
  assert.equal(passages[0].text, "Short first page.");
  assert.equal(passages[3].text, "Last page.");
  // Every word of page 3 is in its two passages, in order.
  assert.equal(`${passages[1].text} ${passages[2].text}`, words(300, "tide"));
});

Deno.test("a document without pages is cut exactly as before, with no page field", () => {
  const text = `${words(150, "alpha")}\n\n${words(150, "beta")}`;
  const plain: Document = { id: "d", title: "D", text, source: "d.txt" };
  const passages = passagesOf([plain]);
  assert.equal(passages.length, 2);
  assert.ok(passages.every((p) => !("page" in p)));
  const onePage = passagesOf([{ ...plain, pages: [0] }]);
  assert.deepEqual(onePage.map((p) => p.text), passages.map((p) => p.text));
  assert.deepEqual(onePage.map((p) => p.page), [1, 1]);
});

Deno.test("fixed windows with overlap stay within a page too", () => {
  const doc = pagedDoc([words(30, "one"), words(30, "two")]);
  const passages = chunkCorpus([doc], { size: 20, overlap: 5, unit: "words" });
  assert.ok(passages.length >= 4);
  for (const p of passages) {
    const onPage = p.page === 1 ? "one" : "two";
    assert.ok(p.text.split(" ").every((w) => w.startsWith(onPage)), `${p.id}: ${p.text}`);
  }
  assert.deepEqual(passages.map((p) => p.index), passages.map((_, i) => i));
});

Deno.test("a paged document with no text on any page is one empty passage", () => {
  assert.deepEqual(passagesOf([pagedDoc(["", " "])]).map((p) => [p.id, p.text]), [[
    "manual#0",
    "",
  ]]);
});
