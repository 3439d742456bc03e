import assert from "node:assert/strict";
import { join } from "node:path";
import { bm25Schema } from "../../../lib/lexical/bm25_config.ts";
import { chunkSchema } from "../../../lib/lexical/chunk_config.ts";
import { embeddingSchema } from "../../../lib/dense/embedding_config.ts";
import { loadCorpus } from "../../../lib/data/corpus.ts";
import { createEmbedderPool } from "../../../lib/dense/embedders.ts";
import { chunkCorpus } from "../../../lib/lexical/chunking.ts";
import { createBm25Retriever } from "../../../lib/retrieval/bm25_retriever.ts";
import { SavedIndexes } from "../../../lib/retrieval/saved_indexes.ts";
import type { Retriever } from "../../../lib/retrieval/types.ts";
import { buildVectorRetriever } from "../../../lib/retrieval/vector_retriever.ts";
import { INDEX_FOLDER } from "../../../lib/cache/index_file.ts";
import type { Corpus } from "../../../lib/types.ts";
import { CRANFIELD } from "../../support/shared_data.ts";
import { tempTree } from "../../support/temp.ts";

const signal = new AbortController().signal;

/** Queries from the corpus itself: each document's title and first words, and two words of it. */
function queriesOf(corpus: Corpus, limit: number): string[] {
  const queries: string[] = [];
  for (const doc of corpus.documents.slice(0, limit)) {
    const words = doc.text.split(/\s+/).filter((w) => w !== "");
    queries.push(`${doc.title} ${words.slice(0, 8).join(" ")}`);
    queries.push(words.slice(3, 5).join(" ") || doc.id);
  }
  return queries;
}

/** Every hit's passage id and score, scores compared bit for bit. */
async function sameHits(
  fresh: Retriever,
  loaded: Retriever,
  queries: readonly string[],
  k: number,
): Promise<number> {
  let hits = 0;
  for (const query of queries) {
    for (const documents of [false, true]) {
      if (documents && !fresh.searchDocuments) continue;
      const search = (r: Retriever) =>
        documents ? r.searchDocuments!(query, k, signal) : r.search(query, k, signal);
      const [a, b] = [(await search(fresh)).hits, (await search(loaded)).hits];
      assert.deepEqual(b.map((h) => h.passage.id), a.map((h) => h.passage.id), query);
      a.forEach((hit, i) => assert.ok(Object.is(hit.score, b[i].score), `${query}: score ${i}`));
      hits += a.length;
    }
  }
  return hits;
}

function bm25(
  corpus: Corpus,
  config: { kind?: string; chunk?: unknown; bm25?: unknown },
  saved?: SavedIndexes,
): Retriever {
  return createBm25Retriever({
    name: "r",
    topK: 5,
    bm25: bm25Schema.parse(config.bm25 ?? {}),
    passages: chunkCorpus(corpus, chunkSchema.parse(config.chunk ?? {})),
    documents: corpus.documents,
    ...(saved ? { saved } : {}),
  });
}

const SETTINGS = [
  { kind: "bm25" },
  { kind: "bm25", chunk: { size: 60 }, bm25: { stemmer: "none", query_repeats: "count" } },
  { kind: "bm25", bm25: { k1: 0.9, b: 0.4, abbreviations: "split", single_letters: "keep" } },
];

for (
  const [name, source] of [
    ["the rag arena", "arenas/rag/corpus.json"],
    ["the tools arena", "arenas/tools/corpus"],
    ["Cranfield", { beir: CRANFIELD }],
  ] as const
) {
  Deno.test(`a saved BM25 index of ${name} ranks bit for bit as a fresh build, passages and whole documents`, async () => {
    const corpus = (await loadCorpus(source)).corpus;
    const queries = queriesOf(corpus, 120);
    await using t = await tempTree();
    for (const config of SETTINGS) {
      const lines: string[] = [];
      const first = new SavedIndexes({
        dir: t.dir,
        mode: "read-write",
        progress: (l) => l.startsWith("warning") && lines.push(l),
      });
      const saving = bm25(corpus, config, first);
      saving.prepareDocuments?.();
      const second = new SavedIndexes({
        dir: t.dir,
        mode: "read-write",
        progress: (l) => l.startsWith("warning") && lines.push(l),
      });
      const loaded = bm25(corpus, config, second);
      loaded.prepareDocuments?.();
      const documentsIndexed = first.outcomes.length;
      assert.ok(
        first.outcomes.every((o) => o.outcome === "built-and-saved"),
        JSON.stringify(first.outcomes),
      );
      assert.deepEqual(
        second.outcomes.map((o) => o.outcome),
        Array(documentsIndexed).fill("loaded"),
      );
      assert.deepEqual(lines, []);
      const hits = await sameHits(bm25(corpus, config), loaded, queries, 100);
      assert.ok(hits > queries.length, `only ${hits} hits`);
    }
  });
}

Deno.test("saved vectors give the same hits and scores as embedding again, and report nothing embedded", async () => {
  const corpus = (await loadCorpus("arenas/rag/corpus.json")).corpus;
  const config = {
    kind: "vector",
    top_k: null,
    embedding: embeddingSchema.parse({ provider: "hashing" }),
  };
  const passages = chunkCorpus(corpus, chunkSchema.parse({}));
  using pool = createEmbedderPool({ mock: false, cacheDir: () => assert.fail("no cache") });
  await using t = await tempTree();
  const build = (saved?: SavedIndexes) =>
    buildVectorRetriever("v", config, passages, {
      embedderFor: pool.embedderFor,
      signal,
      ...(saved ? { saved } : {}),
    });
  const first = new SavedIndexes({ dir: t.dir, mode: "read-write" });
  await build(first);
  const lines: string[] = [];
  const second = new SavedIndexes({
    dir: t.dir,
    mode: "read-write",
    progress: (l) => l.startsWith("warning") && lines.push(l),
  });
  const loaded = await build(second);
  assert.deepEqual(first.outcomes.map((o) => o.outcome), ["built-and-saved"]);
  assert.deepEqual(second.outcomes.map((o) => o.outcome), ["loaded"]);
  assert.equal(loaded.indexing.tokens, 0);
  assert.equal(loaded.indexing.cached, passages.length);
  assert.ok(await sameHits(await build(), loaded, queriesOf(corpus, 40), 10) > 0);
});

Deno.test("a changed document, chunk size or BM25 setting is a new key: the index is built, not loaded", async () => {
  const corpus = (await loadCorpus("arenas/rag/corpus.json")).corpus;
  await using t = await tempTree();
  const saved = () => new SavedIndexes({ dir: t.dir, mode: "read-write" });
  bm25(corpus, { kind: "bm25" }, saved());
  const edited: Corpus = {
    ...corpus,
    documents: corpus.documents.map((d, i) => i === 3 ? { ...d, text: `${d.text} zeppelin` } : d),
  };
  for (
    const [which, config] of [
      [edited, { kind: "bm25" }],
      [corpus, { kind: "bm25", chunk: { size: 40 } }],
      [corpus, { kind: "bm25", bm25: { b: 0.5 } }],
      [corpus, { kind: "bm25", bm25: { stopwords: "none" } }],
    ] as const
  ) {
    const again = saved();
    bm25(which, config, again);
    assert.deepEqual(
      again.outcomes.map((o) => o.outcome),
      ["built-and-saved"],
      JSON.stringify(config),
    );
  }
  const same = saved();
  const loaded = bm25(edited, { kind: "bm25" }, same);
  assert.deepEqual(same.outcomes.map((o) => o.outcome), ["loaded"]);
  assert.equal(
    (await loaded.search("zeppelin", 1, signal)).hits[0].passage.doc_id,
    edited.documents[3].id,
  );
});

/** The one saved file in `dir`. */
function savedFile(dir: string): string {
  const files = [...Deno.readDirSync(join(dir, INDEX_FOLDER))].filter((e) =>
    e.name.endsWith(".idx")
  );
  assert.equal(files.length, 1);
  return join(dir, INDEX_FOLDER, files[0].name);
}

for (
  const [damage, expected, change] of [
    [
      "a flipped bit in the postings",
      /damaged in section postings \(checksum mismatch\)/,
      (b: Uint8Array) => {
        b[Math.floor(b.length * 0.6)] ^= 4;
        return b;
      },
    ],
    ["a truncated file", /truncated/, (b: Uint8Array) => b.subarray(0, b.length - 1000)],
    ["another format version", /has format 7, this ragbench reads format 1/, (b: Uint8Array) => {
      b[8] = 7;
      return b;
    }],
    ["a damaged header", /damaged header/, (b: Uint8Array) => {
      b[30] ^= 1;
      return b;
    }],
    ["garbage", /not a ragbench index file/, () => new TextEncoder().encode("{}")],
  ] as const
) {
  Deno.test(`a saved index with ${damage} is refused with a warning, rebuilt and saved again`, async () => {
    const corpus = (await loadCorpus({ beir: CRANFIELD })).corpus;
    await using t = await tempTree();
    bm25(corpus, { kind: "bm25" }, new SavedIndexes({ dir: t.dir, mode: "read-write" }));
    const path = savedFile(t.dir);
    Deno.writeFileSync(path, change(Deno.readFileSync(path)));
    const lines: string[] = [];
    const saved = new SavedIndexes({
      dir: t.dir,
      mode: "read-write",
      progress: (l) => l.startsWith("warning") && lines.push(l),
    });
    const rebuilt = bm25(corpus, { kind: "bm25" }, saved);
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(
      lines[0],
      /^warning: the saved index of retriever "r" \(.*\.idx\) cannot be used: it /,
    );
    assert.match(lines[0], expected);
    assert.match(lines[0], /rebuilding and saving it again\.$/);
    assert.deepEqual(saved.outcomes.map((o) => o.outcome), ["built-and-saved"]);
    await sameHits(bm25(corpus, { kind: "bm25" }), rebuilt, queriesOf(corpus, 30), 20);
    // Saved again, whole: the next run loads it without a warning.
    const next = new SavedIndexes({
      dir: t.dir,
      mode: "read-write",
      progress: (l) => l.startsWith("warning") && lines.push(l),
    });
    bm25(corpus, { kind: "bm25" }, next);
    assert.deepEqual(next.outcomes.map((o) => o.outcome), ["loaded"]);
    assert.equal(lines.length, 1);
  });
}

Deno.test("mode read never writes, write never reads, off touches nothing", async () => {
  const corpus = (await loadCorpus("arenas/rag/corpus.json")).corpus;
  await using t = await tempTree();
  const reading = new SavedIndexes({ dir: t.dir, mode: "read" });
  bm25(corpus, { kind: "bm25" }, reading);
  assert.deepEqual(reading.outcomes.map((o) => o.outcome), ["built"]);
  bm25(corpus, { kind: "bm25" }, new SavedIndexes({ dir: t.dir, mode: "off" }));
  assert.deepEqual([...Deno.readDirSync(t.dir)], []);
  const writing = new SavedIndexes({ dir: t.dir, mode: "write" });
  bm25(corpus, { kind: "bm25" }, writing);
  bm25(corpus, { kind: "bm25" }, writing);
  assert.deepEqual(writing.outcomes.map((o) => o.outcome), ["built-and-saved", "built-and-saved"]);
  const again = new SavedIndexes({ dir: t.dir, mode: "read" });
  bm25(corpus, { kind: "bm25" }, again);
  assert.deepEqual(again.outcomes.map((o) => o.outcome), ["loaded"]);
});

Deno.test("a cache folder that cannot be written gives a warning and a built index, not a failure", async () => {
  const corpus = (await loadCorpus("arenas/rag/corpus.json")).corpus;
  await using t = await tempTree({ "file": "not a folder" });
  const lines: string[] = [];
  const saved = new SavedIndexes({
    dir: t.path("file"),
    mode: "read-write",
    progress: (l) => l.startsWith("warning") && lines.push(l),
  });
  const built = bm25(corpus, { kind: "bm25" }, saved);
  assert.deepEqual(saved.outcomes.map((o) => o.outcome), ["built"]);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /^warning: cannot save the index of retriever "r" to .*; later runs will build it again\.$/,
  );
  assert.ok((await built.search("tower", 3, signal)).hits.length > 0);
});
