// deno-lint-ignore-file no-console
/**
 * Retrieval quality of PostgreSQL full-text search (the `postgres`
 * retriever) beside ragbench's BM25, on BEIR folders (default: Cranfield of
 * the shared data folder), with ragbench's IR metrics (trec_eval's) and a
 * paired sign-flip test per variant against BM25 on per-query nDCG@10.
 *
 * Both rank documents as `retrieval_only` does: BM25 whole documents (its
 * default); the postgres retriever the run's passages (default chunking),
 * each document by its best passage, 1,000 documents a query. Variants: the
 * query mode (`or`, the default; `and`; `websearch`) and `ts_rank_cd`'s
 * normalization (0, the default; 1: divided by 1 + log(length); 2: by the
 * length).
 *
 *     deno run --allow-read --allow-write --allow-run --allow-env --allow-net=127.0.0.1 \
 *       scripts/eval_engines.ts [--beir FOLDER] [--connection postgresql://...]
 *
 * Without `--connection` it starts a PostgreSQL server of Debian's package
 * in a temporary folder (tests/support/postgres_server.ts) and stops it.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { bm25Schema } from "../lib/config/retriever_schema.ts";
import { loadBeirCorpus, loadBeirQuestions } from "../lib/data/beir.ts";
import type { Question } from "../lib/data/question_schema.ts";
import { chunkCorpus, DEFAULT_CHUNK } from "../lib/lexical/chunking.ts";
import { createBm25Retriever } from "../lib/retrieval/bm25_retriever.ts";
import { buildPostgresRetriever, type PostgresSpec } from "../lib/retrieval/postgres_retriever.ts";
import { documentsById } from "../lib/retrieval/remote/corpus_hits.ts";
import { parsePgConnection } from "../lib/retrieval/remote/pg_connection.ts";
import type { Retriever } from "../lib/retrieval/types.ts";
import { questionMetrics, trecOrder } from "../lib/score/ir_metrics.ts";
import { pairedComparison } from "../lib/score/significance.ts";
import { Secrets } from "../lib/util/secrets.ts";
import type { RankedDoc } from "../lib/types.ts";
import { startPostgres } from "../tests/support/postgres_server.ts";

const DEPTH = 1000;
const COLUMNS = ["ndcg@10", "map", "recall@100", "mrr@10"] as const;
const LABELS = ["nDCG@10", "MAP", "R@100", "MRR@10"];
const SHARED = new URL("../../shared/datasets/cranfield", import.meta.url).pathname;

const VARIANTS: ReadonlyArray<{ label: string; query: PostgresSpec["query"]; norm: number }> = [
  { label: "postgres (query: or, normalization 0)", query: "or", norm: 0 },
  { label: "postgres (query: or, normalization 1)", query: "or", norm: 1 },
  { label: "postgres (query: or, normalization 2)", query: "or", norm: 2 },
  { label: "postgres (query: and)", query: "and", norm: 0 },
  { label: "postgres (query: websearch)", query: "websearch", norm: 0 },
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { beir: { type: "string", default: SHARED }, connection: { type: "string" } },
  });
  const folder = values.beir!;
  const corpus = await loadBeirCorpus(folder);
  const ids = new Set(corpus.documents.map((d) => d.id));
  const { questions } = await loadBeirQuestions(folder, "test", { documentIds: ids });
  const judged = questions.filter((q) => (q.evidence ?? []).length > 0);
  const passages = chunkCorpus(corpus.documents, DEFAULT_CHUNK);
  console.log(
    `# ${folder}: ${corpus.documents.length} documents, ${passages.length} passages, ` +
      `${judged.length} judged queries; ${DEPTH} documents a query`,
  );
  const bm25 = createBm25Retriever({
    name: "bm25",
    topK: DEPTH,
    bm25: bm25Schema.parse({}),
    passages,
    documents: corpus.documents,
  });
  bm25.prepareDocuments?.();
  const base = evaluate(
    judged,
    "ragbench BM25 (default, whole documents)",
    await rank(bm25, judged),
  );
  const rows = [base];
  const server = values.connection ? null : await startPostgres();
  try {
    const url = values.connection ?? server!.tcpUrl;
    const secrets = new Secrets();
    for (const variant of VARIANTS) {
      const target = parsePgConnection(url);
      const retriever = await buildPostgresRetriever({
        name: "postgres",
        topK: DEPTH,
        target,
        site: { retriever: "postgres", kind: "postgres", host: target.printable },
        secrets,
        textSearchConfig: "english",
        query: variant.query,
        normalization: variant.norm,
        table: null,
        passages,
        documents: documentsById(corpus.documents),
        timeoutMs: 60_000,
        maxConnections: 2,
        maxTextChars: 10_000,
        signal: new AbortController().signal,
      });
      try {
        const started = performance.now();
        const rankings = await rank(retriever, judged);
        const ms = (performance.now() - started) / judged.length;
        rows.push(evaluate(judged, variant.label, rankings, ` (${ms.toFixed(1)} ms a query)`));
      } finally {
        await retriever.close();
      }
    }
  } finally {
    await server?.stop();
  }
  const table = [["engine", ...LABELS, "paired nDCG@10 vs BM25"]];
  for (const row of rows) {
    table.push([
      row.label,
      ...row.means.map((v, i) =>
        `${v.toFixed(4)}${row === base ? "" : ` (${(v / base.means[i]).toFixed(3)}×)`}`
      ),
      row === base ? "" : paired(row, base),
    ]);
  }
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const r of table) console.log(r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd());
  for (const row of rows) if (row.note) console.log(`# ${row.label}${row.note}`);
}

interface Evaluated {
  label: string;
  perQuery: Array<Record<string, number>>;
  means: number[];
  note: string;
}

/** Each query's document ranking (a document ranked by its best passage). */
async function rank(retriever: Retriever, judged: readonly Question[]) {
  const signal = new AbortController().signal;
  const out = new Map<string, RankedDoc[]>();
  for (const q of judged) {
    const { hits } = retriever.searchDocuments
      ? await retriever.searchDocuments(q.question, DEPTH, signal)
      : await retriever.search(q.question, DEPTH * 3, signal);
    const best = new Map<string, number>();
    for (const hit of hits) {
      const had = best.get(hit.passage.doc_id);
      if (had === undefined || hit.score > had) best.set(hit.passage.doc_id, hit.score);
    }
    out.set(q.id, [...best].map(([doc_id, score]) => ({ doc_id, score })));
  }
  return out;
}

function evaluate(
  judged: readonly Question[],
  label: string,
  rankings: Map<string, RankedDoc[]>,
  note = "",
): Evaluated {
  const perQuery = judged.map((q) => {
    const docs = trecOrder(rankings.get(q.id) ?? []).slice(0, DEPTH).map((d) => d.doc_id);
    return questionMetrics(docs, new Map(q.evidence!.map((e) => [e.id, e.grade])), [10, 100]);
  });
  const means = COLUMNS.map((key) => perQuery.reduce((s, m) => s + m[key], 0) / perQuery.length);
  return { label, perQuery, means, note };
}

function paired(a: Evaluated, b: Evaluated): string {
  const r = pairedComparison(
    a.perQuery.map((m) => m["ndcg@10"]),
    b.perQuery.map((m) => m["ndcg@10"]),
  );
  const sign = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(4)}`;
  return `${sign(r.diff.mean)} [${sign(r.diff.low)}, ${sign(r.diff.high)}] p = ${
    r.p_value.toFixed(4)
  }`;
}

if (import.meta.main) {
  await main();
}
