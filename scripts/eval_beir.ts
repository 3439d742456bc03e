// deno-lint-ignore-file no-console
/**
 * Retrieval quality on a BEIR folder, next to the peer engines' figures.
 *
 * Evaluates either ragbench's BM25 (as on main: `Bm25Index` over `passagesOf`, best passage per
 * document, default parameters) or any TREC run file (`--run`, e.g. the `trec/<system>.run` of
 * a ragbench run directory), with ragbench's IR metrics (which agree with NIST trec_eval; see
 * tests/lib/score/ir_metrics_test.ts), over every judged query of the split, and prints
 * nDCG@10, MAP, R@100 and MRR@10 (trec_eval `-c`: a query with no result counts 0; MAP over at
 * most 1,000 documents a query). When the folder's README.md holds a table with those four
 * columns (the Cranfield README's "Reference numbers"), its rows are printed beside ours with
 * our ratio to each.
 *
 *     deno run --allow-read scripts/eval_beir.ts [--beir FOLDER] [--split test] [--run FILE]
 *
 * `--beir` defaults to the shared Cranfield folder (`../shared/datasets/cranfield` beside the
 * repository). Exit code 2 for a bad option or unreadable input.
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadBeirCorpus, loadBeirQuestions } from "../lib/data/beir.ts";
import { readTrecRun } from "../lib/data/trec_run.ts";
import { RagbenchError } from "../lib/errors.ts";
import { Bm25Index } from "../lib/retrieval/bm25.ts";
import { passagesOf } from "../lib/retrieval/passages.ts";
import { questionMetrics, type RankedDoc, trecOrder } from "../lib/score/ir_metrics.ts";

/** Documents a query keeps, as trec_eval's default evaluation depth. */
const DEPTH = 1000;
/** Passages asked of BM25 to fill {@link DEPTH} documents after the best-passage reduction. */
const PASSAGE_DEPTH = 3000;

const COLUMNS = [
  { label: "nDCG@10", key: "ndcg@10" },
  { label: "MAP", key: "map" },
  { label: "R@100", key: "recall@100" },
  { label: "MRR@10", key: "mrr@10" },
] as const;

const DEFAULT_BEIR = new URL("../../shared/datasets/cranfield/", import.meta.url).pathname;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      beir: { type: "string", default: DEFAULT_BEIR },
      split: { type: "string", default: "test" },
      run: { type: "string" },
    },
  });
  const folder = values.beir!;
  const corpus = await loadBeirCorpus(folder);
  const ids = new Set(corpus.documents.map((d) => d.id));
  const { questions } = await loadBeirQuestions(folder, values.split!, { documentIds: ids });
  const judged = questions.filter((q) => (q.evidence ?? []).length > 0);

  let label: string;
  let rankings: Map<string, RankedDoc[]>;
  const started = performance.now();
  if (values.run) {
    label = `run ${values.run}`;
    rankings = readTrecRun(values.run);
  } else {
    label = "ragbench BM25 (main: Bm25Index, passages, best passage per document)";
    const index = new Bm25Index(passagesOf(corpus.documents));
    rankings = new Map();
    for (const q of judged) {
      const best = new Map<string, number>();
      for (const hit of index.search(q.question, PASSAGE_DEPTH)) {
        const previous = best.get(hit.passage.doc_id);
        if (previous === undefined || hit.score > previous) best.set(hit.passage.doc_id, hit.score);
      }
      rankings.set(q.id, [...best].map(([doc_id, score]) => ({ doc_id, score })));
    }
  }
  const seconds = (performance.now() - started) / 1000;

  const sums = new Map<string, number>(COLUMNS.map((c) => [c.key, 0]));
  for (const q of judged) {
    const docs = trecOrder(rankings.get(q.id) ?? []).slice(0, DEPTH).map((d) => d.doc_id);
    const m = questionMetrics(docs, new Map(q.evidence!.map((e) => [e.id, e.grade])), [10, 100]);
    for (const c of COLUMNS) sums.set(c.key, sums.get(c.key)! + m[c.key]);
  }
  const ours = COLUMNS.map((c) => sums.get(c.key)! / judged.length);

  console.log(
    `# ${folder} (split ${values.split}): ${corpus.documents.length} documents (${corpus.empty} empty), ${judged.length} judged queries`,
  );
  console.log(`# ours: ${label}; ${seconds.toFixed(2)} s`);
  const peers = await peerTable(join(folder, "README.md"));
  const rows: string[][] = [
    ["engine", ...COLUMNS.map((c) => c.label)],
    ["ragbench (this script)", ...ours.map((v) => v.toFixed(3))],
    ...peers.map((p) => [
      p.engine,
      ...p.values.map((v, i) => `${v.toFixed(3)} (ours ${(ours[i] / v).toFixed(2)}×)`),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows) {
    console.log(
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(
        "  ",
      ),
    );
  }
  if (peers.length === 0) {
    console.log("# no peer table (nDCG@10 | MAP | R@100 | MRR@10) in README.md");
  }
  return 0;
}

/** Rows of the first Markdown table in `file` whose header has the four columns. */
async function peerTable(file: string): Promise<Array<{ engine: string; values: number[] }>> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch {
    return [];
  }
  const cells = (line: string) =>
    line.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  const lines = text.split("\n");
  const start = lines.findIndex((l) => {
    const c = cells(l);
    return l.trim().startsWith("|") && COLUMNS.every((col) => c.includes(col.label));
  });
  if (start === -1) return [];
  const header = cells(lines[start]);
  const at = COLUMNS.map((col) => header.indexOf(col.label));
  const out: Array<{ engine: string; values: number[] }> = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith("|")) break;
    const c = cells(line);
    const engine = [c[0], ...header.slice(1).map((_h, i) => (at.includes(i + 1) ? "" : c[i + 1]))]
      .filter(Boolean).join(", ").replaceAll("`", "");
    out.push({ engine, values: at.map((i) => Number(c[i])) });
  }
  return out;
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (error) {
    if (!(error instanceof RagbenchError) && !(error instanceof TypeError)) throw error;
    console.error(error.message);
    Deno.exit(2);
  }
}
