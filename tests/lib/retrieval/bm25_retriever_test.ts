import assert from "node:assert/strict";
import { bm25Schema, type ChunkConfig } from "../../../lib/config/retriever_schema.ts";
import { createBm25Retriever } from "../../../lib/retrieval/bm25_retriever.ts";
import { chunkCorpus } from "../../../lib/lexical/chunking.ts";
import type { Document } from "../../../lib/types.ts";

const signal = new AbortController().signal;

/** Documents whose title repeats their id, so only their text is indexed. */
function docs(texts: Record<string, string>): Document[] {
  return Object.entries(texts).map(([id, text]) => ({ id, title: id, text, source: "t" }));
}

// "long" is two sentences of 10 and 9 words: cut at 16 words, it is two passages, "apple" in the
// first and "plum" in the second. Every word is a term of its own (no stopword, no single letter).
const DOCUMENTS = docs({
  long: "apple oak elm ash fir yew ivy fern moss reed. plum cod eel gar bass carp pike tuna hake.",
  mid: "apple rose lily iris sage mint plum dill",
  none: "kiwi lime pear fig",
});
const CHUNK = { size: 16, overlap: 0, unit: "words" } as const;

function retrieverOf(settings: Record<string, unknown> = {}, chunk: ChunkConfig = CHUNK) {
  return createBm25Retriever({
    name: "r",
    topK: 10,
    bm25: bm25Schema.parse(settings),
    passages: chunkCorpus(DOCUMENTS, chunk),
    documents: DOCUMENTS,
  });
}

Deno.test("document ranking gives whole-document BM25 scores (hand-checked), not best-passage ones", async () => {
  const retriever = retrieverOf();
  assert.deepEqual(retriever.passages.map((p) => p.id), ["long#0", "long#1", "mid#0", "none#0"]);
  // Whole documents: N = 3, lengths 19, 8 and 4, avgdl = 31 / 3; "apple" and "plum" are each in
  // 2 documents: idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln 1.6 = 0.4700036.
  // A term found once scores idf * 2.5 / (1 + 1.5 * (0.25 + 0.75 * dl / avgdl)):
  //   long (dl 19): 2 * 0.4700036 * 2.5 / (1 + 1.5 * 1.6290323) = 0.6824409
  //   mid  (dl  8): 2 * 0.4700036 * 2.5 / (1 + 1.5 * 0.8306452) = 1.0463276
  const { hits } = await retriever.searchDocuments!("apple plum", 10, signal);
  assert.deepEqual(hits.map((h) => h.passage.id), ["mid", "long"]);
  assert.ok(Math.abs(hits[0].score - 1.0463276) < 1e-6, `${hits[0].score}`);
  assert.ok(Math.abs(hits[1].score - 0.6824409) < 1e-6, `${hits[1].score}`);
  // Each hit is the whole document: its id is the document id, its text the whole text.
  assert.deepEqual(hits[1].passage, {
    id: "long",
    doc_id: "long",
    index: 0,
    title: "long",
    text: DOCUMENTS[0].text,
  });
  // Passages (N = 4, avgdl 31 / 4, idf ln 2): long's best passage holds one of the two words,
  // 0.6931472 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 9 / 7.75)) = 0.6462425 (long#1, 9 words).
  const passages = await retriever.search("apple plum", 10, signal);
  assert.deepEqual(passages.hits.map((h) => h.passage.id), ["mid#0", "long#1", "long#0"]);
  assert.ok(Math.abs(passages.hits[1].score - 0.6462425) < 1e-6);
});

Deno.test("document ranking counts the title once, not once per passage", async () => {
  const titled: Document[] = [
    { id: "d1", title: "Apple", text: DOCUMENTS[0].text, source: "t" },
    { id: "d2", title: "", text: "apple apple pear", source: "t" },
  ];
  const retriever = createBm25Retriever({
    name: "r",
    topK: 10,
    bm25: bm25Schema.parse({}),
    passages: chunkCorpus(titled, CHUNK),
    documents: titled,
  });
  // d1: title + text = 20 terms, "apple" twice; d2: 3 terms, "apple" twice. N = 2, df = 2,
  // idf = ln(1 + 0.5 / 2.5), avgdl = 11.5.
  const idf = Math.log(1.2);
  const want = (dl: number) => idf * 2 * 2.5 / (2 + 1.5 * (0.25 + 0.75 * dl / 11.5));
  const { hits } = await retriever.searchDocuments!("apple", 10, signal);
  assert.deepEqual(hits.map((h) => h.passage.id), ["d2", "d1"]);
  assert.ok(Math.abs(hits[0].score - want(3)) < 1e-12, `${hits[0].score}`);
  assert.ok(Math.abs(hits[1].score - want(20)) < 1e-12, `${hits[1].score}`);
});

Deno.test("when every document is one passage, documents rank exactly as passages", async () => {
  const retriever = retrieverOf({}, { size: 200, overlap: 0, unit: "words" });
  assert.equal(retriever.passages.length, DOCUMENTS.length);
  retriever.prepareDocuments!();
  const whole = await retriever.searchDocuments!("apple plum fig", 10, signal);
  const passages = await retriever.search("apple plum fig", 10, signal);
  assert.deepEqual(
    whole.hits.map((h) => [h.passage.id, h.score]),
    passages.hits.map((h) => [h.passage.doc_id, h.score]),
  );
  assert.deepEqual(whole.hits.map((h) => h.passage.id), ["none", "mid", "long"]);
  for (const hit of whole.hits) {
    assert.equal(hit.passage.text, DOCUMENTS.find((d) => d.id === hit.passage.id)!.text);
  }
});

Deno.test("document_ranking: best_passage, or no documents given, ranks passages only", () => {
  assert.equal(retrieverOf({ document_ranking: "best_passage" }).searchDocuments, undefined);
  assert.equal(retrieverOf({ document_ranking: "best_passage" }).prepareDocuments, undefined);
  const noDocuments = createBm25Retriever({
    name: "r",
    topK: 3,
    bm25: bm25Schema.parse({}),
    passages: chunkCorpus(DOCUMENTS, CHUNK),
  });
  assert.equal(noDocuments.searchDocuments, undefined);
});

Deno.test("searchDocuments applies the bm25 settings and honours the signal", async () => {
  const retriever = retrieverOf({ query_repeats: "count" });
  const once = await retriever.searchDocuments!("plum", 10, signal);
  const twice = await retriever.searchDocuments!("plum plum", 10, signal);
  twice.hits.forEach((h, i) => assert.ok(Math.abs(h.score - 2 * once.hits[i].score) < 1e-12));
  const aborted = new AbortController();
  aborted.abort(new Error("stop"));
  await assert.rejects(retriever.searchDocuments!("plum", 10, aborted.signal), /stop/);
});
