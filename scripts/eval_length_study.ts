// deno-lint-ignore-file no-console
/**
 * `scripts/eval_beir.ts --length-study`: whether any setting of BM25's `k1`
 * and length normalisation, fixed or chosen per collection by a rule, is at
 * least the best peer on nDCG@10, MAP and R@100 on every collection given
 * (issue 23: NPL's best figures are all Lucene's k1 0.9 / b 0.4, where
 * ragbench's default 1.5 / 0.75 is below on all three). It prints, with
 * ragbench's analysis (the default `bm25:` settings) throughout:
 *
 * 1. a check that the study's scorer (`bm25_study.ts`) gives exactly
 *    ragbench's default figures on each collection (else it stops);
 * 2. the Lucene peers emulated (`lucene_replica.ts`) beside their README
 *    figures, and paired tests of ragbench's default against the emulation,
 *    and of ragbench's analysis at Lucene's k1 / b against it (what the
 *    analysis alone is worth);
 * 3. collection statistics a rule could read (mean length, its coefficient
 *    of variation, mean within-document tf);
 * 4. where the relevant documents are by length, against where the default
 *    and Lucene's 0.9 / 0.4 put their top 100;
 * 5. a k1 x b grid: each collection's worst ratio to its best peer, and
 *    whether a single setting is >= 1.00 on every collection; and by k1,
 *    the values of b at which each collection is;
 * 6. fixed settings against the default, with paired sign-flip tests on
 *    per-query nDCG@10 and R@100;
 * 7. collection-adaptive rules (b from the CV of lengths, length smoothed
 *    by mu pseudo-terms, b from the mean tf, k1 from the query length),
 *    each with one constant: chosen on all but one collection (the best
 *    worst-ratio there) and applied to the held-out one, with its paired
 *    tests against the default there.
 *
 * @module
 */

import { pairedComparison } from "../lib/score/significance.ts";
import { StudyIndex } from "./bm25_study.ts";
import { luceneLength, luceneTerms } from "./lucene_replica.ts";
import { type Collection, DEPTH, evaluate, type Evaluated } from "./beir_collection.ts";
import type { RankedDoc } from "../lib/types.ts";

/** A collection of the study: its judged queries, index, and best peer figure of each metric. */
export interface StudyCollection {
  name: string;
  collection: Collection;
  index: StudyIndex;
  /** Best peer nDCG@10, MAP, R@100. */
  best: readonly number[];
  /** The peer rows of the collection's README (engine, then nDCG@10, MAP, R@100, MRR@10). */
  peers: ReadonlyArray<{ engine: string; values: readonly number[] }>;
  /** ragbench's default (as eval_beir.ts evaluates it). */
  reference: Evaluated;
}

/** A BM25 setting: `k1` (or a rule of the query's distinct terms) and a normaliser per document. */
interface Setting {
  k1: number | ((distinctTerms: number) => number);
  norm: (c: StudyCollection) => Float64Array;
  /** Another index of the collection (default: ragbench's analysis). */
  index?: StudyIndex;
  repeats?: "once" | "count";
}

const METRICS = ["ndcg@10", "map", "recall@100"] as const;
const cache = new Map<string, Evaluated>();

function run(c: StudyCollection, key: string, setting: Setting): Evaluated {
  const id = `${c.name}\u0000${key}`;
  let result = cache.get(id);
  if (result === undefined) {
    const norm = setting.norm(c);
    const rankings = new Map<string, RankedDoc[]>();
    const index = setting.index ?? c.index;
    for (const q of c.collection.judged) {
      rankings.set(q.id, index.search(q.question, setting.k1, norm, DEPTH, setting.repeats));
    }
    result = evaluate(c.collection, key, rankings);
    cache.set(id, result);
  }
  return result;
}

function means(e: Evaluated): number[] {
  return METRICS.map((m) => e.perQuery.reduce((s, q) => s + q[m], 0) / e.perQuery.length);
}

/** Ratios to the best peer of nDCG@10, MAP, R@100. */
function ratios(c: StudyCollection, e: Evaluated): number[] {
  return means(e).map((v, i) => v / c.best[i]);
}

const worst = (c: StudyCollection, e: Evaluated) => Math.min(...ratios(c, e));
const linear = (b: number) => (c: StudyCollection) => c.index.linear(b);
const fixed = (k1: number, b: number): Setting => ({ k1, norm: linear(b) });

/** The length statistics of a collection's non-empty documents. */
function statistics(index: StudyIndex): { avgdl: number; cv: number; meanTf: number } {
  const lengths = [...index.lengths].filter((l) => l > 0);
  const mean = lengths.reduce((s, l) => s + l, 0) / lengths.length;
  const variance = lengths.reduce((s, l) => s + (l - mean) ** 2, 0) / lengths.length;
  let tf = 0;
  index.lengths.forEach((l, d) => (tf += l > 0 ? l / index.distinct[d] : 0));
  return { avgdl: mean, cv: Math.sqrt(variance) / mean, meanTf: tf / lengths.length };
}

/** "+0.0123 (p 0.045)" of `a` - `b` on per-query `metric`. */
function paired(a: Evaluated, b: Evaluated, metric: string): string {
  const r = pairedComparison(a.perQuery.map((q) => q[metric]), b.perQuery.map((q) => q[metric]));
  return `${r.diff.mean >= 0 ? "+" : ""}${r.diff.mean.toFixed(4)} (p ${r.p_value.toFixed(3)})`;
}

const f3 = (values: readonly number[]) => values.map((v) => v.toFixed(3)).join(" / ");

/** A rule with one constant, and the constants tried. */
interface Rule {
  label: string;
  constants: readonly number[];
  setting: (constant: number) => Setting;
}

const RULES: readonly Rule[] = [
  {
    label: "b = c / CV of lengths (k1 1.5)",
    constants: [0.25, 0.3, 0.35, 0.4, 0.45, 0.5],
    setting: (c) => ({
      k1: 1.5,
      norm: (s) => s.index.linear(Math.min(1, c / statistics(s.index).cv)),
    }),
  },
  {
    label: "lengths smoothed by mu terms, (dl + mu) / (avgdl + mu), b 0.9 (k1 1.5)",
    constants: [0, 5, 10, 15, 20, 25, 30, 40, 60],
    setting: (mu) => ({
      k1: 1.5,
      norm: (s) => s.index.lengths.map((dl) => 0.1 + 0.9 * (dl + mu) / (s.index.avgdl + mu)),
    }),
  },
  {
    label: "b = kappa (1 - 1 / mean tf) (k1 1.5)",
    constants: [1.5, 2, 2.5, 3, 3.5],
    setting: (kappa) => ({
      k1: 1.5,
      norm: (s) => s.index.linear(Math.min(1, kappa * (1 - 1 / statistics(s.index).meanTf))),
    }),
  },
  {
    label: "k1 = alpha x distinct query terms (b 0.75)",
    constants: [0.08, 0.1, 0.12, 0.14, 0.16, 0.2],
    setting: (alpha) => ({ k1: (terms) => alpha * terms, norm: linear(0.75) }),
  },
];

/** Prints the study over `collections` (at least two, each with peer figures). */
export function lengthStudy(collections: readonly StudyCollection[]): void {
  const names = collections.map((c) => c.name).join(", ");
  console.log(`# Length-normalisation study over ${names}, ragbench's analysis throughout`);
  for (const c of collections) {
    const mine = means(run(c, "default", fixed(1.5, 0.75)));
    const theirs = means(c.reference);
    if (mine.some((v, i) => v !== theirs[i])) {
      throw new Error(`The study's scorer does not reproduce ragbench's default on ${c.name}.`);
    }
  }
  console.log(`check: the study's scorer gives ragbench's default figures exactly on ${names}`);
  luceneSection(collections);

  console.log("\n## Collection statistics (indexed terms per document)");
  for (const c of collections) {
    const s = statistics(c.index);
    console.log(
      `${c.name.padEnd(10)} avgdl ${s.avgdl.toFixed(1).padStart(6)}  CV ${s.cv.toFixed(3)}  ` +
        `mean tf ${s.meanTf.toFixed(3)}`,
    );
  }

  console.log(
    "\n## By length (dl / avgdl): share of documents | of relevant pairs | of the top 100 " +
      "at 1.5 / 0.75 (default) | at 0.9 / 0.4",
  );
  const edges = [0, 0.5, 1, 1.5, 2, Infinity];
  for (const c of collections) {
    const bucket = (doc: string) => {
      const x = c.index.lengths[docIndex(c).get(doc)!] / c.index.avgdl;
      return edges.findIndex((e, i) => x >= e && x < edges[i + 1]);
    };
    const shares = (docs: Iterable<string>) => {
      const counts = new Array(edges.length - 1).fill(0);
      let total = 0;
      for (const d of docs) (counts[bucket(d)]++, total++);
      return counts.map((n) => n / total);
    };
    const top = (setting: Setting) =>
      c.collection.judged.flatMap((q) =>
        c.index.search(q.question, setting.k1, setting.norm(c), 100).map((h) => h.doc_id)
      );
    const columns = [
      shares(c.collection.documents.map((d) => d.id)),
      shares(c.collection.judged.flatMap((q) => q.evidence!.map((e) => e.id))),
      shares(top(fixed(1.5, 0.75))),
      shares(top(fixed(0.9, 0.4))),
    ];
    const cells = edges.slice(0, -1).map((e, i) =>
      `[${e},${edges[i + 1] === Infinity ? "" : edges[i + 1]}) ${
        columns.map((col) => col[i].toFixed(2)).join("|")
      }`
    );
    console.log(`${c.name.padEnd(10)} ${cells.join("  ")}`);
  }

  const K1 = [0.9, 1.2, 1.5, 1.8, 2.1];
  const B = [0.3, 0.4, 0.5, 0.6, 0.75, 0.9];
  console.log(
    `\n## k1 x b: worst ratio to the best peer (of nDCG@10, MAP, R@100), ${names}; ` +
      "* = >= 1.00 on every one",
  );
  let anywhere = false;
  for (const k1 of K1) {
    const cells = B.map((b) => {
      const w = collections.map((c) => worst(c, run(c, `${k1}/${b}`, fixed(k1, b))));
      const all = w.every((v) => v >= 1);
      anywhere ||= all;
      return `b ${b}: ${w.map((v) => v.toFixed(3)).join("/")}${all ? "*" : " "}`;
    });
    console.log(`k1 ${k1.toFixed(1)}  ${cells.join("  ")}`);
  }
  console.log(
    anywhere
      ? "# some single setting is >= 1.00 on every collection (*)"
      : "# no single k1 / b of the grid is >= 1.00 on every collection",
  );

  console.log(
    "\n## The values of b (0.30 to 1.00, step 0.02) at which each collection is >= 1.00 on all " +
      "three, by k1",
  );
  const scan = Array.from({ length: 36 }, (_, i) => Math.round(30 + 2 * i) / 100);
  for (const k1 of [0.9, 1.2, 1.5, 1.8]) {
    for (const c of collections) {
      const ok = scan.filter((b) => worst(c, run(c, `${k1}/${b}`, fixed(k1, b))) >= 1);
      console.log(`k1 ${k1} ${c.name.padEnd(10)} ${ok.length === 0 ? "none" : ok.join(" ")}`);
    }
  }

  console.log(
    "\n## Fixed settings against the default: ratios to the best peer (nDCG@10 / MAP / R@100); " +
      "paired sign-flip on per-query nDCG@10, R@100",
  );
  for (const [k1, b] of [[0.9, 0.4], [1.2, 0.75], [1.5, 0.5], [1.8, 0.5]]) {
    for (const c of collections) {
      const e = run(c, `${k1}/${b}`, fixed(k1, b));
      const base = run(c, "default", fixed(1.5, 0.75));
      console.log(
        `k1 ${k1} b ${b}  ${c.name.padEnd(10)} ${f3(ratios(c, e))}  nDCG@10 ${
          paired(e, base, "ndcg@10")
        }  R@100 ${paired(e, base, "recall@100")}`,
      );
    }
  }

  console.log(
    "\n## Collection-adaptive rules, one constant each, leave one collection out: the constant " +
      "with the best worst-ratio on the others, applied to the held-out one",
  );
  for (const rule of RULES) {
    console.log(`${rule.label}`);
    const of = (c: StudyCollection, k: number) => run(c, `${rule.label} ${k}`, rule.setting(k));
    const overall = (k: number) => Math.min(...collections.map((c) => worst(c, of(c, k))));
    const fitted = rule.constants.reduce((a, k) => (overall(k) > overall(a) ? k : a));
    console.log(
      `  fitted on all (in-sample) constant ${fitted}: ${
        collections.map((c) => `${c.name} ${f3(ratios(c, of(c, fitted)))}`).join("  ")
      }`,
    );
    for (const held of collections) {
      const train = collections.filter((c) => c !== held);
      const score = (k: number) => Math.min(...train.map((c) => worst(c, of(c, k))));
      const chosen = rule.constants.reduce((a, k) => (score(k) > score(a) ? k : a));
      const feasible = rule.constants.filter((k) => score(k) >= 1);
      const holds = feasible.filter((k) => worst(held, of(held, k)) >= 1);
      const e = of(held, chosen);
      const base = run(held, "default", fixed(1.5, 0.75));
      console.log(
        `  held out ${held.name.padEnd(10)} constant ${chosen} (worst on the others ${
          score(chosen).toFixed(3)
        }): ${f3(ratios(held, e))}  nDCG@10 ${paired(e, base, "ndcg@10")}  R@100 ${
          paired(e, base, "recall@100")
        }  (${holds.length} of the ${feasible.length} constants >= 1.00 on the others hold)`,
      );
    }
  }
}

const luceneIndexes = new WeakMap<StudyCollection, StudyIndex>();

/** The Lucene emulation's ranking of `c` at `k1` / `b`. */
function lucene(c: StudyCollection, k1: number, b: number): Evaluated {
  let index = luceneIndexes.get(c);
  if (index === undefined) {
    index = new StudyIndex(c.collection.documents, luceneTerms);
    luceneIndexes.set(c, index);
  }
  const lucene = index;
  return run(c, `lucene ${k1}/${b}`, {
    k1,
    norm: () => lucene.lengths.map((dl) => 1 - b + b * luceneLength(dl) / lucene.avgdl),
    index: lucene,
    repeats: "count",
  });
}

function luceneSection(collections: readonly StudyCollection[]): void {
  console.log(
    "\n## Lucene emulated (lucene_replica.ts; README figures in brackets); paired sign-flip of " +
      "ragbench's default - emulation, and of ragbench's analysis at the same k1 / b - emulation",
  );
  for (const [k1, b] of [[0.9, 0.4], [1.2, 0.75]]) {
    for (const c of collections) {
      const replica = lucene(c, k1, b);
      const row = c.peers.find((p) =>
        /lucene/i.test(p.engine) && p.engine.includes(`${k1} / ${b}`)
      );
      const readme = row ? f3(row.values.slice(0, 3)) : "no README row";
      const ours = run(c, `${k1}/${b}`, fixed(k1, b));
      const base = run(c, "default", fixed(1.5, 0.75));
      const tests = (e: Evaluated) =>
        METRICS.map((m) => `${LABELS[m]} ${paired(e, replica, m)}`).join("  ");
      console.log(
        `k1 ${k1} b ${b}  ${c.name.padEnd(10)} ${
          means(replica).map((v) => v.toFixed(4)).join(" / ")
        } [${readme}]\n    default - emulation: ${tests(base)}\n    analysis alone: ${tests(ours)}`,
      );
    }
  }
}

const LABELS: Record<string, string> = { "ndcg@10": "nDCG@10", map: "MAP", "recall@100": "R@100" };

const docIndexes = new WeakMap<StudyCollection, Map<string, number>>();
function docIndex(c: StudyCollection): Map<string, number> {
  let map = docIndexes.get(c);
  if (map === undefined) {
    map = new Map(c.collection.documents.map((d, i) => [d.id, i]));
    docIndexes.set(c, map);
  }
  return map;
}
