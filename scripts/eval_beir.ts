// deno-lint-ignore-file no-console
/**
 * Retrieval quality on BEIR folders, next to the peer engines' figures, and
 * against ragbench's previous default.
 *
 * For each collection it evaluates ragbench's BM25 exactly as `retrieval_only`
 * ranks documents (a `kind: bm25` retriever with every default of the config
 * schema: whole-document ranking, 1,000 documents a query) with ragbench's IR
 * metrics (which agree with NIST trec_eval; see tests/lib/score/ir_metrics_test.ts)
 * over every judged query of the split, and prints:
 *
 * - nDCG@10, MAP, R@100 and MRR@10 (trec_eval `-c`: a query with no result
 *   counts 0; MAP over at most 1,000 documents a query) of the default and of
 *   the previous default (before issue 23: best passage per document, dots
 *   split, single letters indexed, repeated query words counted);
 * - when the folder's README.md holds a table with those four columns (the
 *   shared collections' "peers" tables), each peer row with our ratio to it,
 *   and the best peer figure of each metric (rows naming ragbench are not
 *   peers) with our ratio to it;
 * - paired tests of the default against the previous default on per-query
 *   nDCG@10 and R@100: the mean difference with its 95 % bootstrap interval
 *   and the two-sided p of the sign-flip permutation test (`pairedComparison`,
 *   lib/score/significance.ts). Peers' per-query figures are not published:
 *   here peers are compared by ratio; `--length-study` emulates the Lucene
 *   peers to compare with them query by query.
 *
 * `--ablation` adds what each change of issue 23 buys on its own (the
 * previous default with that one setting changed), each with its paired test
 * against the previous default. `--run FILE` evaluates a TREC run file
 * instead (e.g. the `trec/<system>.run` of a ragbench run directory), beside
 * the peers, with no paired test. `--length-study` then studies k1 and
 * document-length normalisation across the collections (at least two, each
 * with a peer table): see `scripts/eval_length_study.ts`.
 *
 *     deno run --allow-read scripts/eval_beir.ts [--beir FOLDER]... [--split test] [--ablation] [--run FILE] [--length-study]
 *
 * Without `--beir`, every collection of the shared data folder
 * (`../shared/datasets/` beside the repository: Cranfield, MED, NPL). Exit code
 * 2 for a bad option or unreadable input.
 *
 * @module
 */

import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { type Bm25Config, bm25Schema } from "../lib/config/retriever_schema.ts";
import { readTrecRun } from "../lib/data/trec_run.ts";
import { RagbenchError } from "../lib/errors.ts";
import { createBm25Retriever } from "../lib/retrieval/bm25_retriever.ts";
import { chunkCorpus, DEFAULT_CHUNK } from "../lib/lexical/chunking.ts";
import type { RankedDoc } from "../lib/types.ts";
import { pairedComparison } from "../lib/score/significance.ts";
import {
  type Collection,
  COLUMNS,
  DEPTH,
  evaluate,
  type Evaluated,
  loadCollection,
} from "./beir_collection.ts";
import { StudyIndex } from "./bm25_study.ts";
import { lengthStudy, type StudyCollection } from "./eval_length_study.ts";

/** Passages asked of BM25 to fill {@link DEPTH} documents after the best-passage reduction. */
const PASSAGE_DEPTH = 3000;

/** The `bm25:` settings before issue 23 (the previous default). */
const PREVIOUS: Partial<Bm25Config> = {
  abbreviations: "split",
  single_letters: "keep",
  query_repeats: "count",
  document_ranking: "best_passage",
};

/** The changes of issue 23, each applied alone to {@link PREVIOUS} by `--ablation`. */
const CHANGES: ReadonlyArray<{ label: string; set: Partial<Bm25Config> }> = [
  { label: "+ document_ranking: whole", set: { document_ranking: "whole" } },
  { label: "+ abbreviations: keep", set: { abbreviations: "keep" } },
  { label: "+ single_letters: drop", set: { single_letters: "drop" } },
  { label: "+ query_repeats: once", set: { query_repeats: "once" } },
];

const SHARED = new URL("../../shared/datasets/", import.meta.url).pathname;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      beir: { type: "string", multiple: true },
      split: { type: "string", default: "test" },
      run: { type: "string" },
      ablation: { type: "boolean", default: false },
      "length-study": { type: "boolean", default: false },
    },
  });
  const folders = values.beir ?? sharedCollections();
  if (values.run && folders.length !== 1) {
    throw new TypeError("--run evaluates one collection: give one --beir FOLDER with it.");
  }
  const study = values["length-study"];
  if (study && (values.run || folders.length < 2)) {
    throw new TypeError(
      "--length-study compares collections: give at least two --beir folders (or none, for the shared ones), and no --run.",
    );
  }
  const studied: StudyCollection[] = [];
  for (const folder of folders) {
    const collection = await loadCollection(folder, values.split!);
    console.log(
      `# ${folder} (split ${values.split}): ${collection.documents.length} documents (${collection.empty} empty), ${collection.judged.length} judged queries`,
    );
    const peers = await peerTable(join(folder, "README.md"));
    if (values.run) {
      const run = evaluate(collection, `run ${values.run}`, readTrecRun(values.run));
      printTable([run], peers);
      continue;
    }
    const started = performance.now();
    const current = evaluate(collection, "ragbench (default)", await rank(collection, {}));
    const seconds = (performance.now() - started) / 1000;
    const previous = evaluate(
      collection,
      "ragbench (previous default)",
      await rank(collection, PREVIOUS),
    );
    console.log(
      `# ragbench default: whole-document BM25, as retrieval_only ranks; ${seconds.toFixed(2)} s`,
    );
    printTable([current, previous], peers);
    console.log(pairedLine(current, previous, "ndcg@10"));
    console.log(pairedLine(current, previous, "recall@100"));
    if (study) {
      const real = peers.filter((p) => !/^ragbench\b/i.test(p.engine));
      if (real.length === 0) {
        throw new TypeError(
          `--length-study needs the peers' figures of every collection: ${folder}/README.md has no peer table.`,
        );
      }
      studied.push({
        name: basename(folder.replace(/\/+$/, "")),
        collection,
        index: new StudyIndex(collection.documents),
        best: [0, 1, 2].map((i) => Math.max(...real.map((p) => p.values[i]))),
        peers: real,
        reference: current,
      });
    }
    if (values.ablation) {
      console.log(
        "# each change alone, on the previous default (nDCG@10 MAP R@100; paired test on nDCG@10):",
      );
      for (const change of CHANGES) {
        const settings = { ...PREVIOUS, ...change.set };
        const alone = evaluate(collection, change.label, await rank(collection, settings));
        console.log(
          `${change.label.padEnd(28)} ${
            alone.means.slice(0, 3).map((v) => v.toFixed(4)).join(" ")
          }  ${pairedLine(alone, previous, "ndcg@10")}`,
        );
      }
    }
    console.log("");
  }
  if (study) lengthStudy(studied);
  return 0;
}

/** The collections of the shared data folder (those with a corpus.jsonl), by name. */
function sharedCollections(): string[] {
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(SHARED)) {
      if (entry.isDirectory && exists(join(SHARED, entry.name, "corpus.jsonl"))) {
        names.push(entry.name);
      }
    }
  } catch {
    throw new TypeError(`No --beir folder given and no shared data folder at ${SHARED}.`);
  }
  return names.sort().map((name) => join(SHARED, name));
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Each judged query's document ranking by a BM25 retriever with `settings` over the defaults:
 * whole documents when it ranks them (`searchDocuments`, as `retrieval_only` asks), else
 * passages reduced to each document's best, as the scorer reduces a `retrieval_only` step.
 */
async function rank(
  collection: Collection,
  settings: Partial<Bm25Config>,
): Promise<Map<string, RankedDoc[]>> {
  const retriever = createBm25Retriever({
    name: "eval",
    topK: DEPTH,
    bm25: bm25Schema.parse(settings),
    passages: chunkCorpus(collection.documents, DEFAULT_CHUNK),
    documents: collection.documents,
  });
  retriever.prepareDocuments?.();
  const signal = new AbortController().signal;
  const rankings = new Map<string, RankedDoc[]>();
  for (const q of collection.judged) {
    const { hits } = retriever.searchDocuments
      ? await retriever.searchDocuments(q.question, DEPTH, signal)
      : await retriever.search(q.question, PASSAGE_DEPTH, signal);
    const best = new Map<string, number>();
    for (const hit of hits) {
      const previous = best.get(hit.passage.doc_id);
      if (previous === undefined || hit.score > previous) best.set(hit.passage.doc_id, hit.score);
    }
    rankings.set(q.id, [...best].map(([doc_id, score]) => ({ doc_id, score })));
  }
  return rankings;
}

/** "paired ..., p = ..." of `a` against `b` on the per-query values of metric `key`. */
function pairedLine(a: Evaluated, b: Evaluated, key: "ndcg@10" | "recall@100"): string {
  const result = pairedComparison(a.perQuery.map((m) => m[key]), b.perQuery.map((m) => m[key]));
  const sign = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(4)}`;
  const label = COLUMNS.find((c) => c.key === key)!.label;
  return `paired (${a.label} - ${b.label}), per-query ${label} over ${result.n} queries: ${
    sign(result.diff.mean)
  } [95% CI ${sign(result.diff.low)}, ${sign(result.diff.high)}], sign-flip p = ${
    result.p_value.toFixed(4)
  }`;
}

/** Our rows, then the best peer figure of each metric and every peer row, with our ratios. */
function printTable(ours: readonly Evaluated[], peers: readonly Peer[]): void {
  const mine = ours[0].means;
  const ratio = (value: number, i: number) =>
    `${value.toFixed(3)} (ours ${(mine[i] / value).toFixed(3)}×)`;
  const rows: string[][] = [
    ["engine", ...COLUMNS.map((c) => c.label)],
    ...ours.map((o) => [o.label, ...o.means.map((v) => v.toFixed(4))]),
  ];
  const real = peers.filter((p) => !/^ragbench\b/i.test(p.engine));
  if (real.length > 0) {
    const best = COLUMNS.map((_c, i) => Math.max(...real.map((p) => p.values[i])));
    rows.push(["best peer (each metric)", ...best.map(ratio)]);
    rows.push(...peers.map((p) => [p.engine, ...p.values.map(ratio)]));
  }
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
  } else {
    const best = COLUMNS.slice(0, 3).map((_c, i) => Math.max(...real.map((p) => p.values[i])));
    const ratios = best.map((b, i) => mine[i] / b);
    console.log(
      `# ${ours[0].label} / best peer: ${
        COLUMNS.slice(0, 3).map((c, i) => `${c.label} ${ratios[i].toFixed(3)}×`).join(", ")
      } (${
        ratios.every((r) => r >= 1)
          ? "at least the best peer on all three"
          : "below the best peer on " +
            COLUMNS.slice(0, 3).filter((_c, i) => ratios[i] < 1).map((c) => c.label).join(", ")
      })`,
    );
  }
}

/** A row of a README's peer table. */
interface Peer {
  engine: string;
  values: number[];
}

/** Rows of the first Markdown table in `file` whose header has the four columns. */
async function peerTable(file: string): Promise<Peer[]> {
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
  const out: Peer[] = [];
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
