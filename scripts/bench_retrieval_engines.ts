/**
 * The engines of scripts/bench_retrieval.ts, run in its child processes
 * (`--engine`): the corpus and queries of a setup, each engine built and
 * queried, and what a child reports back.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { syntheticCorpus, syntheticQueries } from "./synthetic_corpus.ts";
import { type RealCollection, realCorpus, realQueries } from "./real_corpus.ts";
import type { Corpus } from "../lib/types.ts";
import { ownRetriever, retrieverSchema } from "../lib/config/retriever_schema.ts";
import { createBm25Retriever } from "../lib/retrieval/bm25_retriever.ts";
import { chunkCorpus } from "../lib/lexical/chunking.ts";
import { DEFAULT_ANALYSIS, tokenize } from "../lib/lexical/tokenizer.ts";

/** Content words, unstemmed: what FTS5 (which stems itself) is asked for. */
const FTS_ANALYSIS = { ...DEFAULT_ANALYSIS, stemmer: "none" } as const;
import type { Passage } from "../lib/lexical/passages.ts";

const WARMUP_QUERIES = 20;

/** Timings of one engine. */
export interface Measured {
  name: string;
  buildS: number;
  /** Retained RSS growth (MB). */
  rssMb: number;
  /** Peak RSS growth during the build (MB), NaN when unknown. */
  peakMb: number;
  p50: number;
  p95: number;
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

function rssMb(): number {
  return Deno.memoryUsage().rss / (1024 * 1024);
}

/** Runs `build`, returning its result, seconds and RSS growth (MB). */
function measureBuild<T>(build: () => T): { value: T; s: number; rss: number } {
  collectGarbage();
  const before = rssMb();
  const started = performance.now();
  const value = build();
  const s = (performance.now() - started) / 1000;
  collectGarbage();
  return { value, s, rss: rssMb() - before };
}

/** The value at fraction `q` of sorted `values` (nearest rank). */
function percentile(sorted: number[], q: number): number {
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

function latencies(queries: string[], warmup: string[], run: (q: string) => unknown): number[] {
  for (const q of warmup) run(q);
  const times: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    run(q);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/** The text FTS5 indexes for a passage: what our index sees (title rule of bm25.ts). */
function indexedText(p: Passage): string {
  return p.title !== "" && p.title !== p.doc_id ? `${p.title}\n${p.text}` : p.text;
}

/** An FTS5 MATCH expression: the query's content words, each quoted, joined by OR. */
function ftsQuery(query: string): string {
  return [...new Set(tokenize(query, FTS_ANALYSIS))].map((t) => `"${t.replaceAll('"', '""')}"`)
    .join(" OR ");
}

/** Every other query with stopwords around it, as users type them. */
function withStopwords(queries: string[]): string[] {
  return queries.map((q, i) => (i % 2 === 0 ? `what is the ${q} of the` : q));
}

/** A command-line value that must be a whole number >= 1. */
export function wholeNumber(option: string, raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1) {
    throw new RangeError(`${option} must be a whole number of at least 1, got "${raw}".`);
  }
  return value;
}

/** `value` with `digits` decimals. */
export function fmt(value: number, digits: number): string {
  return value.toFixed(digits);
}

/** What a child process reports for its engine. */
export interface ChildReport extends Measured {
  /** RSS (MB) just before the build, after a forced GC. */
  rssBeforeMb: number;
  passages: number;
  /** Top-K passage ids of each measured query, for the agreement check. */
  top: string[][];
}

/** The engines, in the order a round runs them. */
export const ENGINES = ["ours", "fts_bare", "fts_full"] as const;
/** One of {@link ENGINES}. */
export type Engine = typeof ENGINES[number];

/** What a child builds and asks. */
export interface Setup {
  docs: number;
  queryCount: number;
  top: number;
  /** "synthetic" or a real collection's name. */
  corpus: string;
  datasets?: string;
}

/** Characters of text per synthetic document: a real collection is repeated to `docs` times it. */
const SYNTHETIC_CHARS_PER_DOC = 1052;

/** The corpus and queries of `setup` (the synthetic queries get stopwords on every other one). */
export async function corpusAndQueries(
  setup: Setup,
): Promise<{ corpus: Corpus; queries: string[] }> {
  const count = setup.queryCount + WARMUP_QUERIES;
  if (setup.corpus === "synthetic") {
    return {
      corpus: syntheticCorpus({ documents: setup.docs }),
      queries: withStopwords(syntheticQueries(count)),
    };
  }
  const name = setup.corpus as RealCollection;
  const options = setup.datasets ? { datasets: setup.datasets } : {};
  const real = await realCorpus(name, { chars: setup.docs * SYNTHETIC_CHARS_PER_DOC, ...options });
  if ("missing" in real) throw new Error(`the ${name} collection is missing: ${real.missing}`);
  return { corpus: real.corpus, queries: await realQueries(name, count, options) };
}

/** Builds one engine and measures it, in this process (the child side). */
export async function runEngine(engine: Engine, setup: Setup): Promise<ChildReport> {
  const { corpus, queries: allQueries } = await corpusAndQueries(setup);
  const queries = allQueries.slice(0, setup.queryCount);
  const warmup = allQueries.slice(setup.queryCount);
  const defaults = ownRetriever(retrieverSchema.parse({}));
  const top = setup.top;
  if (engine === "ours") {
    collectGarbage();
    const before = rssMb();
    const built = measureBuild(() =>
      createBm25Retriever({
        name: "default",
        topK: top,
        bm25: defaults.bm25,
        passages: chunkCorpus(corpus, defaults.chunk),
      }).index
    );
    const index = built.value;
    const times = latencies(queries, warmup, (q) => index.search(q, top));
    return {
      name: "ragbench BM25",
      buildS: built.s,
      rssMb: built.rss,
      rssBeforeMb: before,
      peakMb: NaN,
      p50: percentile(times, 0.5),
      p95: percentile(times, 0.95),
      passages: index.passages.length,
      top: queries.map((q) => index.search(q, top).map((h) => h.passage.id)),
    };
  }
  // FTS5, handed our passages ready-made, with and without stored text.
  const passages = chunkCorpus(corpus, defaults.chunk);
  const texts = passages.map(indexedText);
  const options = engine === "fts_bare" ? ", content=''" : "";
  collectGarbage();
  const before = rssMb();
  const built = measureBuild(() => {
    const db = new DatabaseSync(":memory:");
    db.exec(
      `CREATE VIRTUAL TABLE passages USING fts5(body, tokenize='porter unicode61'${options})`,
    );
    const insert = db.prepare("INSERT INTO passages(rowid, body) VALUES (?, ?)");
    db.exec("BEGIN");
    for (let i = 0; i < texts.length; i++) insert.run(i, texts[i]);
    db.exec("COMMIT");
    return db;
  });
  const db = built.value;
  const select = db.prepare(
    "SELECT rowid, bm25(passages) AS score FROM passages WHERE passages MATCH ? " +
      "ORDER BY score LIMIT ?",
  );
  const search = (q: string) => {
    const match = ftsQuery(q);
    return match === "" ? [] : select.all(match, top) as Array<{ rowid: number }>;
  };
  const times = latencies(queries, warmup, search);
  const report: ChildReport = {
    name: engine === "fts_bare" ? "FTS5 OR, content=''" : "FTS5 OR, default",
    buildS: built.s,
    rssMb: built.rss,
    rssBeforeMb: before,
    peakMb: NaN,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    passages: passages.length,
    top: queries.map((q) => search(q).map((row) => passages[row.rowid].id)),
  };
  db.close();
  return report;
}
