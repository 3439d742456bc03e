/**
 * Retrieval benchmark: ragbench's BM25 index against SQLite FTS5 (`node:sqlite`),
 * measured side by side in one process on the synthetic corpus.
 *
 * Run (full size: 100,000 documents, 200 queries; about two minutes and under 1 GB of memory):
 *
 *     deno run --allow-read --allow-write --allow-env --v8-flags=--expose-gc scripts/bench_retrieval.ts
 *
 * Quick run: add `--docs 10000`. Other options: `--queries N` (default 200), `--top K` (default 5).
 *
 * What is measured, for each engine:
 * - build: seconds from the corpus's documents to a searchable index. Ours includes
 *   cutting the documents into passages; FTS5 is handed those same passages ready-made,
 *   one row each, holding the same text our index sees (title + passage text), inserted in
 *   one transaction into an in-memory database with the default `unicode61` tokenizer.
 * - RSS growth: `Deno.memoryUsage().rss` after the build minus before it, each after a
 *   forced garbage collection when `--expose-gc` is given. Ours is built first and kept
 *   alive while FTS5 builds, so neither engine's growth is hidden by memory the other freed.
 * - query p50 / p95: latency of the top-K search for each query (after 20 warm-up queries
 *   not among the measured ones). Ours includes tokenising the query. BM25 ranks any passage
 *   holding any query term, so FTS5 is asked the same: the terms joined with OR. FTS5 is also
 *   timed with its implicit AND (all terms required; a smaller, easier result set), and each
 *   target compares against the FASTER of the two FTS5 modes.
 *
 * Targets (DESIGN.md "Performance targets"): build no slower than FTS5, query p50 and p95 no
 * slower than FTS5, RSS growth under 400 MB. One PASS/FAIL line per target; the exit code is
 * 1 when any target fails (2 for a bad option). The targets are meant for the full size: on a
 * few thousand documents JIT warm-up dominates our build time, so quick runs are smoke tests.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { syntheticCorpus, syntheticQueries } from "./synthetic_corpus.ts";
import { retrieverSchema } from "../lib/config/retriever_schema.ts";
import { createBm25Retriever } from "../lib/retrieval/bm25_retriever.ts";
import { chunkCorpus } from "../lib/retrieval/chunking.ts";
import { tokenize } from "../lib/retrieval/tokenizer.ts";
import type { Passage } from "../lib/retrieval/passages.ts";

const RSS_LIMIT_MB = 400;
const WARMUP_QUERIES = 20;

/** Timings of one engine. */
interface Measured {
  name: string;
  buildS: number;
  rssMb: number;
  p50: number;
  p95: number;
}

function print(line = ""): void {
  // deno-lint-ignore no-console
  console.log(line);
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

/** An FTS5 MATCH expression of the query's terms: each quoted, joined by `joiner`. */
function ftsQuery(query: string, joiner: string): string {
  return [...new Set(tokenize(query))].map((t) => `"${t.replaceAll('"', '""')}"`).join(joiner);
}

/** A command-line value that must be a whole number >= 1. */
function wholeNumber(option: string, raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1) {
    throw new RangeError(`${option} must be a whole number of at least 1, got "${raw}".`);
  }
  return value;
}

function fmt(value: number, digits: number): string {
  return value.toFixed(digits);
}

function main(): number {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      docs: { type: "string", default: "100000" },
      queries: { type: "string", default: "200" },
      top: { type: "string", default: "5" },
    },
  });
  const docs = wholeNumber("--docs", values.docs);
  const queryCount = wholeNumber("--queries", values.queries);
  const top = wholeNumber("--top", values.top);
  const gcExposed = typeof (globalThis as { gc?: unknown }).gc === "function";

  let started = performance.now();
  const corpus = syntheticCorpus({ documents: docs });
  const allQueries = syntheticQueries(queryCount + WARMUP_QUERIES);
  const queries = allQueries.slice(0, queryCount);
  const warmup = allQueries.slice(queryCount);
  let chars = 0;
  for (const d of corpus.documents) chars += d.text.length;
  print(
    `corpus: ${docs} documents, ${fmt(chars / 1e6, 1)} MB of text, generated in ${
      fmt((performance.now() - started) / 1000, 1)
    } s; ${queryCount} queries, top ${top}; gc ${gcExposed ? "forced" : "NOT exposed"}`,
  );

  // Ours: exactly what the search tool does on its first call.
  collectGarbage();
  let rssBefore = rssMb();
  started = performance.now();
  const defaults = retrieverSchema.parse({});
  const retriever = createBm25Retriever({
    name: "default",
    topK: top,
    bm25: defaults.bm25,
    passages: chunkCorpus(corpus, defaults.chunk),
  }).index;
  const oursBuild = (performance.now() - started) / 1000;
  collectGarbage();
  const oursRss = rssMb() - rssBefore;
  const oursTimes = latencies(queries, warmup, (q) => retriever.search(q, top));
  const ours: Measured = {
    name: "ragbench BM25",
    buildS: oursBuild,
    rssMb: oursRss,
    p50: percentile(oursTimes, 0.5),
    p95: percentile(oursTimes, 0.95),
  };

  // FTS5, handed our passages ready-made.
  const passages = retriever.passages;
  const texts = passages.map(indexedText);
  collectGarbage();
  rssBefore = rssMb();
  started = performance.now();
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE VIRTUAL TABLE passages USING fts5(body)");
  const insert = db.prepare("INSERT INTO passages(rowid, body) VALUES (?, ?)");
  db.exec("BEGIN");
  for (let i = 0; i < texts.length; i++) insert.run(i, texts[i]);
  db.exec("COMMIT");
  const ftsBuild = (performance.now() - started) / 1000;
  texts.length = 0;
  collectGarbage();
  const ftsRss = rssMb() - rssBefore;
  const select = db.prepare(
    "SELECT rowid, bm25(passages) AS score FROM passages WHERE passages MATCH ? " +
      "ORDER BY score LIMIT ?",
  );
  const ftsSearch = (q: string, joiner: string) => {
    const match = ftsQuery(q, joiner);
    return match === "" ? [] : select.all(match, top) as Array<{ rowid: number }>;
  };
  const orTimes = latencies(queries, warmup, (q) => ftsSearch(q, " OR "));
  const andTimes = latencies(queries, warmup, (q) => ftsSearch(q, " "));
  const ftsOr: Measured = {
    name: "SQLite FTS5, OR",
    buildS: ftsBuild,
    rssMb: ftsRss,
    p50: percentile(orTimes, 0.5),
    p95: percentile(orTimes, 0.95),
  };
  const ftsAnd: Measured = {
    ...ftsOr,
    name: "SQLite FTS5, AND",
    p50: percentile(andTimes, 0.5),
    p95: percentile(andTimes, 0.95),
  };

  // Agreement (a sanity check, not a target): share of FTS5's OR top-K that ours also returns.
  let shared = 0;
  let total = 0;
  for (const q of queries) {
    const mine = new Set(retriever.search(q, top).map((h) => h.passage.id));
    for (const row of ftsSearch(q, " OR ")) {
      total++;
      if (mine.has(passages[row.rowid].id)) shared++;
    }
  }
  db.close();

  const best = {
    p50: Math.min(ftsOr.p50, ftsAnd.p50),
    p95: Math.min(ftsOr.p95, ftsAnd.p95),
  };
  const rows = [ours, ftsOr, ftsAnd];
  const line = (cells: string[]) =>
    cells[0].padEnd(20) + cells.slice(1).map((c) => c.padStart(15)).join("");
  print();
  print(line(["engine", "build s", "RSS growth MB", "query p50 ms", "query p95 ms"]));
  for (const r of rows) {
    print(line([r.name, fmt(r.buildS, 2), fmt(r.rssMb, 0), fmt(r.p50, 3), fmt(r.p95, 3)]));
  }
  print(line([
    "ours / FTS5 (best)",
    fmt(ours.buildS / ftsOr.buildS, 2) + "x",
    fmt(ours.rssMb / ftsOr.rssMb, 2) + "x",
    fmt(ours.p50 / best.p50, 2) + "x",
    fmt(ours.p95 / best.p95, 2) + "x",
  ]));
  print();
  print(
    `passages: ${passages.length}; agreement: ${fmt(total ? (100 * shared) / total : 100, 1)}% ` +
      `of FTS5's OR top ${top} is also in ours`,
  );
  const targets: Array<[string, boolean]> = [
    [
      `build time no slower than FTS5 (${fmt(ours.buildS, 2)} s vs ${fmt(ftsOr.buildS, 2)} s)`,
      ours.buildS <= ftsOr.buildS,
    ],
    [
      `query p50 no slower than FTS5 (${fmt(ours.p50, 3)} ms vs ${fmt(best.p50, 3)} ms)`,
      ours.p50 <= best.p50,
    ],
    [
      `query p95 no slower than FTS5 (${fmt(ours.p95, 3)} ms vs ${fmt(best.p95, 3)} ms)`,
      ours.p95 <= best.p95,
    ],
    [
      `RSS growth under ${RSS_LIMIT_MB} MB (${fmt(ours.rssMb, 0)} MB)`,
      ours.rssMb < RSS_LIMIT_MB,
    ],
  ];
  for (const [what, ok] of targets) print(`${ok ? "PASS" : "FAIL"} ${what}`);
  if (!gcExposed) print("note: run with --v8-flags=--expose-gc for meaningful RSS figures");
  return targets.every(([, ok]) => ok) ? 0 : 1;
}

if (import.meta.main) {
  try {
    Deno.exitCode = main();
  } catch (error) {
    print(`bench_retrieval: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exitCode = 2;
  }
}
