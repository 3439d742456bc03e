import assert from "node:assert/strict";
import { chunkCorpus, DEFAULT_CHUNK } from "../../../lib/lexical/chunking.ts";
import { passagesOf } from "../../../lib/lexical/passages.ts";
import type { Document } from "../../../lib/types.ts";

function doc(id: string, text: string): Document {
  return { id, title: `Title ${id}`, text, source: `${id}.txt` };
}

/** `count` numbered words, `w0 w1 ...`. */
function words(count: number, from = 0): string {
  return Array.from({ length: count }, (_, i) => `w${from + i}`).join(" ");
}

Deno.test("chunkCorpus at the defaults gives today's passages of the search tool", () => {
  const long = `${words(150)}.\n\n${words(180, 150)}. ${words(90, 330)}.`;
  const docs = [doc("a", long), doc("b", "short text"), doc("c", "")];
  assert.deepEqual(chunkCorpus(docs), passagesOf(docs));
  assert.deepEqual(chunkCorpus(docs, DEFAULT_CHUNK), passagesOf(docs));
});

Deno.test("chunkCorpus with overlap gives fixed windows sharing the overlap", () => {
  const passages = chunkCorpus([doc("a", words(50))], { size: 20, overlap: 5, unit: "words" });
  assert.deepEqual(passages.map((p) => p.id), ["a#0", "a#1", "a#2"]);
  assert.equal(passages[0].text, words(20));
  assert.equal(passages[1].text, words(20, 15));
  assert.equal(passages[2].text, words(20, 30));
  for (const p of passages) assert.equal(p.title, "Title a");
});

Deno.test("chunkCorpus windows cover every word, in order, and end at the document's end", () => {
  const text = words(97);
  const passages = chunkCorpus([doc("a", text)], { size: 16, overlap: 3, unit: "words" });
  const seen = new Set<string>();
  for (const p of passages) {
    const ws = p.text.split(" ");
    assert.ok(ws.length <= 16);
    for (const w of ws) seen.add(w);
  }
  assert.equal(seen.size, 97);
  assert.ok(passages.at(-1)!.text.endsWith("w96"));
  passages.forEach((p, i) => assert.equal(p.index, i));
});

Deno.test("chunkCorpus counts tokens as one per four characters of a word, at least one", () => {
  // "abcdefgh" is 2 tokens, "x" is 1: 8 words of 2 tokens = 16 tokens per 8 words.
  const text = Array.from({ length: 20 }, () => "abcdefgh").join(" ");
  const passages = chunkCorpus([doc("a", text)], { size: 16, overlap: 0, unit: "tokens" });
  assert.deepEqual(passages.map((p) => p.text.split(" ").length), [8, 8, 4]);
  const small = chunkCorpus([doc("b", "x y z")], { size: 16, overlap: 0, unit: "tokens" });
  assert.deepEqual(small.map((p) => p.text), ["x y z"]);
});

Deno.test("chunkCorpus keeps an empty document as one empty passage", () => {
  const passages = chunkCorpus([doc("e", "  ")], { size: 20, overlap: 4, unit: "words" });
  assert.deepEqual(passages.map((p) => [p.id, p.text]), [["e#0", ""]]);
});

Deno.test("chunkCorpus counts each Han character as a word", () => {
  const passages = chunkCorpus([doc("j", "東京タワー")], { size: 2, overlap: 1, unit: "words" });
  assert.deepEqual(passages.map((p) => p.text), ["東京", "京タ", "タワ", "ワー"]);
});

Deno.test("chunkCorpus refuses an overlap as large as the size", () => {
  assert.throws(
    () => chunkCorpus([doc("a", "x")], { size: 20, overlap: 20, unit: "words" }),
    /overlap must be from 0 to size - 1/,
  );
});
