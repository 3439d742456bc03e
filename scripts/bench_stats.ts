// deno-lint-ignore-file no-console
/**
 * The statistics of a big run (issue 24 item 5): `runStats` (every system's interval, every pair's
 * sign-flip test and McNemar) on synthetic result lines shaped like a `--mock` run, against the
 * time to `JSON.parse` the same lines serialised (one JSON text a line, as the results file holds
 * them; the floor of any reader, which must read them before it can count them).
 *
 *     deno run --allow-read scripts/bench_stats.ts [--sizes 10x1000,100x1000,100x10000]
 *       [--rounds 3] [--root DIR]
 *
 * The lines: S systems × Q questions in four families of systems (closed-book-like to rag-like,
 * skills 0.45..0.75); a system gives its family's answer on a question except on 4 % of them, so
 * systems mostly agree (like the mock run's systems, which share scripted answers); 1 % of the
 * questions have no answer check (null score, left out). Two shapes at each size: binary scores
 * (0 or 1) with one repeat, and graded scores (0, 1/3, 1/2, 2/3, 1, as a mock run's partial
 * checks give) with three repeats, each repeat redrawn 8 % of the time. The same seeded generator
 * gives the same lines every time.
 *
 * Times are the process's CPU time (user + system; the machine is shared, so its wall clock says
 * more about the neighbours than about this code). Printed per size and shape: lines, the parse
 * pass (ms), `runStats` (ms, median of `--rounds`), their ratio, the per-system part (folding the
 * lines and each system's two intervals, timed alone: `foldRepeats` and `bootstrapMean` as
 * `runStats` calls them) divided by the systems, and the rest divided by the pairs. With `--root DIR`
 * (another checkout, e.g. the commit before a change) its `runStats` runs on the same lines in the
 * same process and is printed beside, with a check that both give the same statistics.
 *
 * @module
 */

import { cpuUsage } from "node:process";
import { isDeepStrictEqual } from "node:util";
import { metricValue, type RunStats, runStats, type ScoredLine } from "../lib/score/comparison.ts";
import { foldRepeats } from "../lib/score/fold_repeats.ts";
import { bootstrapMean } from "../lib/score/significance.ts";
import { createRng } from "../lib/util/prng.ts";

type RunStatsFn = typeof runStats;

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Deno.args[i + 1];
}

const sizes = flag("sizes", "10x1000,100x1000,100x10000").split(",").map((s) => {
  const [systems, questions] = s.split("x").map(Number);
  if (!(systems >= 1 && questions >= 1)) {
    console.log(`--sizes takes SYSTEMSxQUESTIONS,... (got "${s}")`);
    Deno.exit(2);
  }
  return { systems, questions };
});
const rounds = Number(flag("rounds", "3"));
const root = flag("root", "");

let peer: RunStatsFn | undefined;
if (root) {
  const url = new URL(`file://${await Deno.realPath(root)}/lib/score/comparison.ts`);
  peer = (await import(url.href) as { runStats: RunStatsFn }).runStats;
}

interface Shape {
  name: string;
  graded: boolean;
  repeats: number;
}

const SHAPES: Shape[] = [
  { name: "binary, 1 repeat", graded: false, repeats: 1 },
  { name: "graded, 3 repeats", graded: true, repeats: 3 },
];

const GRADES = [0, 1 / 3, 0.5, 2 / 3];

/** Synthetic result lines (see the module documentation), system by system as a run writes them. */
function synthLines(systems: number, questions: number, shape: Shape): ScoredLine[] {
  const rng = createRng(systems * 1_000_003 + questions * 7 + (shape.graded ? 1 : 0));
  const draw = (skill: number): number => {
    if (!shape.graded) return rng() < skill ? 1 : 0;
    return rng() < skill * 0.8 ? 1 : GRADES[Math.floor(rng() * GRADES.length)];
  };
  const families = 4;
  const skill = (f: number) => 0.45 + 0.1 * f;
  const unchecked = new Uint8Array(questions).map(() => (rng() < 0.01 ? 1 : 0));
  const base = Array.from({ length: families }, (_, f) => {
    const row = new Float64Array(questions);
    for (let q = 0; q < questions; q++) row[q] = draw(skill(f));
    return row;
  });
  const lines: ScoredLine[] = [];
  for (let s = 0; s < systems; s++) {
    const f = s % families;
    for (let q = 0; q < questions; q++) {
      const own = rng() < 0.04 ? draw(skill(f)) : base[f][q];
      for (let r = 1; r <= shape.repeats; r++) {
        const score = unchecked[q] ? null : r > 1 && rng() < 0.08 ? draw(skill(f)) : own;
        lines.push({
          system: `system_${s}`,
          question_id: `q${q + 1}`,
          repeat: r,
          answer_score: score,
          passed: score === null ? null : score >= 0.5,
        });
      }
    }
  }
  return lines;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeIt(work: () => void): number {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = cpuUsage();
    work();
    const used = cpuUsage(started);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

console.log(
  `runStats against a JSON.parse pass over the same lines (CPU ms, median of ${rounds} rounds${
    root ? `; peer checkout ${root}` : ""
  })`,
);
console.log(
  [
    "size",
    "shape",
    "lines",
    "parse ms",
    "runStats ms",
    "× parse",
    "ms/pair",
    "ms/system",
    ...(peer ? ["peer ms", "peer/this", "same"] : []),
  ].join("\t"),
);
for (const { systems, questions } of sizes) {
  for (const shape of SHAPES) {
    const lines = synthLines(systems, questions, shape);
    const names = Array.from({ length: systems }, (_, s) => `system_${s}`);
    const texts = lines.map((l) => JSON.stringify(l));
    let parsed = 0;
    const parseMs = timeIt(() => {
      parsed = 0;
      for (const text of texts) if (JSON.parse(text).system) parsed++;
    });
    let ours: RunStats | undefined;
    const oursMs = timeIt(() => ours = runStats(names, lines));
    const systemsMs = timeIt(() => {
      const folded = foldRepeats(names, lines, (line) => metricValue(line, "answer_score"));
      for (const f of folded.values()) {
        bootstrapMean(f.score);
        bootstrapMean(f.passShare);
      }
    });
    const pairs = systems * (systems - 1) / 2;
    const row = [
      `${systems}×${questions}`,
      shape.name,
      String(parsed),
      parseMs.toFixed(0),
      oursMs.toFixed(0),
      (oursMs / parseMs).toFixed(2),
      pairs ? (Math.max(0, oursMs - systemsMs) / pairs).toFixed(3) : "-",
      (systemsMs / systems).toFixed(2),
    ];
    if (peer) {
      let theirs: RunStats | undefined;
      const peerMs = timeIt(() => theirs = peer(names, lines));
      row.push(
        peerMs.toFixed(0),
        (peerMs / oursMs).toFixed(1),
        isDeepStrictEqual(ours, theirs) ? "yes" : "NO",
      );
    }
    console.log(row.join("\t"));
  }
}
