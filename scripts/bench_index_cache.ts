/**
 * Saved indexes against building them (issue 23 item 6): over the 100,000-document synthetic
 * corpus, the time to build a BM25 index (default settings) and to embed its passages (the
 * offline hashing embedder, `hashing:v1:384`), against the time a later run takes to load each
 * from the cache folder (`lib/retrieval/saved_indexes.ts`): the key (a SHA-256 of every
 * passage), reading the file, its CRC-32 checks and the index's own checks, and for vectors the
 * `VectorIndex` built from them. Building and loading alternate in one process (the machine's
 * load moves both alike); each figure is the median of `--repeats` rounds. Both sides start
 * from the same chunked passages (chunking is the same work either way and is not counted).
 * Before timing, the script checks that the loaded indexes return the same hits with the same
 * scores (bit for bit) as the built ones on 200 queries.
 *
 * Two clocks: wall time, and this process's CPU time (user + system, `process.cpuUsage`). On a
 * shared machine the wall ratio moves with the other processes' load (waiting for a core counts
 * as time); the CPU ratio is the work each side does. Both are printed; a target passes when the
 * wall ratio meets it, and the CPU ratio is printed beside it so a run on a loaded machine can be
 * read.
 *
 * Run:
 *
 *     deno run --allow-read --allow-write --allow-env --allow-sys=loadavg \
 *       scripts/bench_index_cache.ts
 *
 * Options: `--docs N` (default 100000), `--repeats N` (default 3), `--no-vectors`.
 * Prints one line per index and a PASS/FAIL line per target (load >= 10x faster than build);
 * exits 1 when a target fails.
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import { syntheticCorpus, syntheticQueries } from "./synthetic_corpus.ts";
import { bm25Schema } from "../lib/lexical/bm25_config.ts";
import { chunkSchema } from "../lib/lexical/chunk_config.ts";
import { embeddingSchema } from "../lib/dense/embedding_config.ts";
import { chunkCorpus } from "../lib/lexical/chunking.ts";
import { Bm25Index } from "../lib/lexical/bm25.ts";
import { bm25OptionsOf } from "../lib/retrieval/bm25_retriever.ts";
import { SavedIndexes } from "../lib/retrieval/saved_indexes.ts";
import { createEmbedderPool } from "../lib/dense/embedders.ts";
import { buildVectorRetriever } from "../lib/retrieval/vector_retriever.ts";
import type { Retriever } from "../lib/retrieval/types.ts";

const TARGET = 10;

function print(line = ""): void {
  // deno-lint-ignore no-console
  console.log(line);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    docs: { type: "string", default: "100000" },
    repeats: { type: "string", default: "3" },
    "no-vectors": { type: "boolean", default: false },
  },
});
const docs = Number(values.docs);
const repeats = Number(values.repeats);
if (!(docs >= 1 && repeats >= 1)) {
  print("--docs and --repeats take whole numbers >= 1");
  Deno.exit(2);
}

const corpus = syntheticCorpus({ documents: docs });
const queries = syntheticQueries(200);
const dir = await Deno.makeTempDir({ prefix: "ragbench_bench_index_" });
const signal = new AbortController().signal;
let failed = false;

function fileBytes(): number {
  let total = 0;
  for (const entry of Deno.readDirSync(`${dir}/indexes-v1`)) {
    if (entry.name.endsWith(".idx")) total += Deno.statSync(`${dir}/indexes-v1/${entry.name}`).size;
  }
  return total;
}

/** Milliseconds of CPU (user + system) this process has used. */
function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

/** Wall and CPU milliseconds of `work`. */
async function measure(work: () => unknown): Promise<{ wall: number; cpu: number }> {
  const wall = performance.now();
  const cpu = cpuMs();
  await work();
  return { wall: performance.now() - wall, cpu: cpuMs() - cpu };
}

function report(
  name: string,
  build: Array<{ wall: number; cpu: number }>,
  load: Array<{ wall: number; cpu: number }>,
  extra: string,
): void {
  const [bw, lw] = [median(build.map((m) => m.wall)), median(load.map((m) => m.wall))];
  const [bc, lc] = [median(build.map((m) => m.cpu)), median(load.map((m) => m.cpu))];
  print(
    `${name}: build ${bw.toFixed(0)} ms wall / ${bc.toFixed(0)} ms CPU, load ${lw.toFixed(0)} ms ` +
      `wall / ${lc.toFixed(0)} ms CPU (medians of ${repeats}); ${extra}`,
  );
  const pass = bw / lw >= TARGET;
  failed ||= !pass;
  print(
    `${pass ? "PASS" : "FAIL"} ${name}: load >= ${TARGET}x faster than build: ` +
      `${(bw / lw).toFixed(1)}x wall (${(bc / lc).toFixed(1)}x CPU; load average ${
        Deno.loadavg()[0].toFixed(1)
      })`,
  );
}

try {
  const passages = chunkCorpus(corpus, chunkSchema.parse({}));
  const options = bm25OptionsOf(bm25Schema.parse({}));
  print(
    `corpus: ${docs} documents, ${passages.length} passages; ${queries.length} queries; ` +
      `cache folder ${dir}`,
  );

  // BM25: save once, check the loaded index, then alternate builds and loads.
  const built = new SavedIndexes({ dir, mode: "write" }).bm25(passages, options, "bm25");
  const loaded = new SavedIndexes({ dir, mode: "read" }).bm25(passages, options, "bm25");
  for (const query of queries) {
    const [a, b] = [built.search(query, 100), loaded.search(query, 100)];
    if (
      a.length !== b.length ||
      a.some((hit, i) => hit.passage !== b[i].passage || !Object.is(hit.score, b[i].score))
    ) throw new Error(`the loaded BM25 index differs from the built one on "${query}"`);
  }
  const bm25Build: Array<{ wall: number; cpu: number }> = [];
  const bm25Load: Array<{ wall: number; cpu: number }> = [];
  for (let r = 0; r < repeats; r++) {
    bm25Build.push(await measure(() => new Bm25Index(passages, options)));
    const saved = new SavedIndexes({ dir, mode: "read" });
    bm25Load.push(await measure(() => saved.bm25(passages, options, "bm25")));
    if (saved.outcomes[0].outcome !== "loaded") throw new Error("the BM25 index was not loaded");
  }
  report("BM25", bm25Build, bm25Load, `${(fileBytes() / 2 ** 20).toFixed(0)} MB on disk`);

  if (!values["no-vectors"]) {
    const vectorConfig = {
      kind: "vector",
      top_k: null,
      embedding: embeddingSchema.parse({ provider: "hashing" }),
    };
    using pool = createEmbedderPool({ mock: false, cacheDir: () => dir });
    const vectors = (saved?: SavedIndexes) =>
      buildVectorRetriever("v", vectorConfig, passages, {
        embedderFor: pool.embedderFor,
        signal,
        ...(saved ? { saved } : {}),
      });
    const before = fileBytes();
    const embedded: Retriever = await vectors(new SavedIndexes({ dir, mode: "write" }));
    const reloaded: Retriever = await vectors(new SavedIndexes({ dir, mode: "read" }));
    for (const query of queries.slice(0, 50)) {
      const [a, b] = [
        (await embedded.search(query, 20, signal)).hits,
        (await reloaded.search(query, 20, signal)).hits,
      ];
      if (
        a.length !== b.length ||
        a.some((hit, i) => hit.passage !== b[i].passage || !Object.is(hit.score, b[i].score))
      ) throw new Error(`the loaded vectors differ from the embedded ones on "${query}"`);
    }
    const vectorBuild: Array<{ wall: number; cpu: number }> = [];
    const vectorLoad: Array<{ wall: number; cpu: number }> = [];
    for (let r = 0; r < repeats; r++) {
      vectorBuild.push(await measure(() => vectors()));
      vectorLoad.push(await measure(() => vectors(new SavedIndexes({ dir, mode: "read" }))));
    }
    report(
      "vectors (hashing:v1:384)",
      vectorBuild,
      vectorLoad,
      `${((fileBytes() - before) / 2 ** 20).toFixed(0)} MB on disk`,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
Deno.exit(failed ? 1 : 0);
