/**
 * The fast statistics (typed-array folding, merged pairs, shared tests, selected ends) give the
 * figures of the straightforward implementation they replaced (`reference_run_stats.ts`,
 * `reference_sign_flip.ts`), value for value, on many random runs.
 */

import assert from "node:assert/strict";
import { runStats, type ScoredLine } from "../../../lib/score/comparison.ts";
import { type SignFlipMemo, signFlipTest } from "../../../lib/score/sign_flip.ts";
import { mcnemarExact, pairedComparison } from "../../../lib/score/significance.ts";
import { createRng } from "../../../lib/util/prng.ts";
import {
  mcnemarExact as referenceMcnemar,
  pairedComparison as referencePaired,
  runStats as referenceRunStats,
} from "./reference_run_stats.ts";
import { signFlipTest as referenceSignFlip } from "./reference_sign_flip.ts";

type Rng = () => number;

const GRADES = [0, 1 / 3, 0.5, 2 / 3, 1];
const ODD_IDS = ["__proto__", "constructor", "q10", "q9", "Q1", "é", "", "toString", "q 1"];

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

interface RunShape {
  systems: number;
  questions: number;
  kind: "binary" | "graded" | "continuous" | "noisy";
  repeats: number;
  agreement: number;
  metric: string;
  shuffled: boolean;
}

function randomShape(rng: Rng): RunShape {
  return {
    systems: 1 + Math.floor(rng() * 6),
    questions: pick(rng, [1, 3, 8, 30, 150, 260, 600]),
    kind: pick(rng, ["binary", "binary", "graded", "continuous", "noisy"] as const),
    repeats: 1 + Math.floor(rng() * 3),
    agreement: pick(rng, [0.98, 0.93, 0.8, 0.5]),
    metric: rng() < 0.2 ? "ndcg@10" : "answer_score",
    shuffled: rng() < 0.3,
  };
}

function drawValue(rng: Rng, kind: RunShape["kind"]): number {
  if (kind === "binary") return rng() < 0.6 ? 1 : 0;
  if (kind === "graded") return pick(rng, GRADES);
  if (kind === "continuous") return rng();
  // Equal scores a hair apart: differences under DIFF_EPSILON count as none.
  return pick(rng, [0, 1]) + (rng() < 0.5 ? 1e-12 : 0) * (rng() < 0.5 ? 1 : -1);
}

/**
 * A random run: systems that mostly agree, missing questions, a system with no value, a listed
 * system with no line and lines of an unlisted one, repeats missing or given twice, odd ids.
 */
function randomRun(rng: Rng, shape: RunShape): { systems: string[]; lines: ScoredLine[] } {
  const ids = Array.from(
    { length: shape.questions },
    (_, q) => q < ODD_IDS.length && rng() < 0.3 ? ODD_IDS[q] : `q${q + 1}`,
  );
  const base = ids.map(() => drawValue(rng, shape.kind));
  const systems = Array.from({ length: shape.systems }, (_, s) => `sys${s}`);
  const lines: ScoredLine[] = [];
  const empty = shape.systems > 2 && rng() < 0.3 ? 1 : -1;
  const lineOf = (system: string, q: string, repeat: number, value: number | null) => {
    const retrieval: ScoredLine["retrieval"] = shape.metric === "answer_score"
      ? rng() < 0.5 ? undefined : { metrics: { "ndcg@10": rng() } }
      : rng() < 0.05
      ? { metrics: null }
      : rng() < 0.05
      ? undefined
      : { metrics: value === null ? {} : { "ndcg@10": value, "recall@100": rng() } };
    const line: ScoredLine = {
      system,
      question_id: q,
      repeat,
      answer_score: shape.metric === "answer_score" ? value : rng() < 0.5 ? null : rng(),
      passed: value === null ? null : value >= 0.5,
    };
    if (retrieval !== undefined) line.retrieval = retrieval;
    return line;
  };
  for (const [s, system] of [...systems, "unlisted"].entries()) {
    for (const [q, id] of ids.entries()) {
      if (rng() < 0.05) continue;
      const own = rng() < shape.agreement ? base[q] : drawValue(rng, shape.kind);
      const repeats = shape.repeats === 1 ? 1 : 1 + Math.floor(rng() * shape.repeats);
      for (let r = 1; r <= repeats; r++) {
        const value = s === empty || rng() < 0.02
          ? null
          : rng() < 0.1
          ? drawValue(rng, shape.kind)
          : own;
        lines.push(lineOf(system, id, r, value));
        if (rng() < 0.02) lines.push(lineOf(system, id, r, own));
      }
    }
  }
  if (shape.shuffled) {
    for (let i = lines.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [lines[i], lines[j]] = [lines[j], lines[i]];
    }
  } else if (rng() < 0.5) {
    // Repeats written newest first: folded in repeat order all the same.
    lines.reverse();
  }
  const listed = [...systems, "never_ran"];
  if (rng() < 0.2) listed.push(systems[0]);
  return { systems: listed, lines };
}

Deno.test("runStats equals the straightforward implementation on 50 random runs, value for value", () => {
  const rng = createRng(424242);
  const methods = new Set<string>();
  for (let run = 0; run < 50; run++) {
    // The first run has systems far enough apart for the normal test.
    const shape: RunShape = run === 0
      ? {
        ...randomShape(rng),
        questions: 600,
        agreement: 0.5,
        kind: "binary",
        metric: "answer_score",
      }
      : randomShape(rng);
    const { systems, lines } = randomRun(rng, shape);
    const fast = runStats(systems, lines, { metric: shape.metric });
    const reference = referenceRunStats(systems, lines, { metric: shape.metric });
    assert.deepStrictEqual(fast, reference, `run ${run}: ${JSON.stringify(shape)}`);
    for (const pair of fast.pairs) methods.add(pair.score.method);
  }
  // The runs reached the exact and the normal test (the next test is made for the drawn one).
  assert.ok(methods.has("exact") && methods.has("normal"), [...methods].join());
});

Deno.test("runStats equals the straightforward implementation on runs made for the Monte Carlo test", () => {
  const rng = createRng(77);
  let drawn = 0;
  for (let run = 0; run < 6; run++) {
    const shape: RunShape = {
      systems: 6,
      questions: pick(rng, [400, 900]),
      kind: pick(rng, ["binary", "graded"] as const),
      repeats: pick(rng, [1, 3]),
      agreement: 0.96,
      metric: "answer_score",
      shuffled: false,
    };
    const { systems, lines } = randomRun(rng, shape);
    const fast = runStats(systems, lines);
    assert.deepStrictEqual(fast, referenceRunStats(systems, lines), JSON.stringify(shape));
    drawn += fast.pairs.filter((p) => p.score.method === "monte_carlo").length;
  }
  assert.ok(drawn >= 20, `only ${drawn} pairs were drawn`);
});

Deno.test("runStats equals the straightforward implementation when systems ran different questions (sparse)", () => {
  // 300 systems with 10 of 4,000 questions each: too sparse for a table of every system and
  // question, so the cells are found in a Map.
  const rng = createRng(5);
  const lines: ScoredLine[] = [];
  const systems = Array.from({ length: 300 }, (_, s) => `s${s}`);
  for (const system of systems) {
    for (let k = 0; k < 10; k++) {
      const q = k < 3 ? k : Math.floor(rng() * 4000);
      const score = rng() < 0.5 ? 1 : 0;
      lines.push({
        system,
        question_id: `q${q}`,
        repeat: 1,
        answer_score: score,
        passed: score === 1,
      });
    }
  }
  const fast = runStats(systems, lines);
  assert.deepStrictEqual(fast, referenceRunStats(systems, lines));
  assert.ok(fast.pairs.length >= 300 * 299 / 2);
});

Deno.test("runStats of a run whose every system answered every question in one order (the usual run) equals the reference", () => {
  const rng = createRng(9);
  for (const repeats of [1, 3]) {
    const shape: RunShape = {
      systems: 8,
      questions: 250,
      kind: repeats === 1 ? "binary" : "graded",
      repeats,
      agreement: 0.9,
      metric: "answer_score",
      shuffled: false,
    };
    const lines: ScoredLine[] = [];
    const base = Array.from({ length: shape.questions }, () => drawValue(rng, shape.kind));
    for (let s = 0; s < shape.systems; s++) {
      for (let q = 0; q < shape.questions; q++) {
        const own = rng() < shape.agreement ? base[q] : drawValue(rng, shape.kind);
        for (let r = 1; r <= repeats; r++) {
          const score = r > 1 && rng() < 0.1 ? drawValue(rng, shape.kind) : own;
          lines.push({
            system: `s${s}`,
            question_id: `q${q + 1}`,
            repeat: r,
            answer_score: score,
            passed: score >= 0.5,
          });
        }
      }
    }
    const systems = Array.from({ length: shape.systems }, (_, s) => `s${s}`);
    assert.deepStrictEqual(runStats(systems, lines), referenceRunStats(systems, lines));
  }
});

function mostlyZero(rng: Rng, n: number, differing: number, values: readonly number[]): number[] {
  const d = new Array<number>(n).fill(0);
  for (let i = 0; i < differing; i++) d[Math.floor(rng() * n)] = pick(rng, values);
  return d;
}

Deno.test("signFlipTest equals the straightforward implementation (exact, Monte Carlo, normal), with and without its memo", () => {
  const rng = createRng(31337);
  const memo: SignFlipMemo = new Map();
  const seen = new Set<string>();
  for (let t = 0; t < 120; t++) {
    const n = pick(rng, [5, 40, 300, 1000, 2500]);
    const values = pick(rng, [[-1, 1], [-1, 1, -0.5, 0.5, 1 / 3, -2 / 3], [0.25, -1]]);
    const d = rng() < 0.2
      ? Array.from({ length: n }, () => rng() * 2 - 1)
      : mostlyZero(rng, n, Math.floor(rng() * Math.min(n, 260)), values);
    const options = {
      seed: Math.floor(rng() * 1e9),
      bounds: [-1, 1] as const,
      ...(rng() < 0.2 ? { resamples: 999 } : {}),
    };
    const want = referenceSignFlip(d, options);
    assert.deepStrictEqual(signFlipTest(d, options), want, `test ${t}`);
    assert.deepStrictEqual(signFlipTest(Float64Array.from(d), { ...options, memo }), want);
    // Once more: now from the memo, and the same.
    assert.deepStrictEqual(signFlipTest(d, { ...options, memo }), want);
    seen.add(want.method);
  }
  assert.deepEqual([...seen].sort(), ["exact", "monte_carlo", "normal"]);
});

Deno.test("pairs with the same differences share one test through the memo, and a caller cannot spoil it", () => {
  const rng = createRng(3);
  const d = mostlyZero(rng, 600, 60, [-1, 1]);
  const memo: SignFlipMemo = new Map();
  const first = signFlipTest(d, { seed: 1, memo });
  assert.equal(first.method, "monte_carlo");
  assert.equal(memo.size, 1);
  // The same differences in another order: one entry still.
  const again = signFlipTest([...d].reverse(), { seed: 1, memo });
  assert.equal(memo.size, 1);
  again.p_value = 42;
  assert.deepStrictEqual(signFlipTest(d, { seed: 1, memo }), first);
  // Another seed, other draws: its own entry.
  signFlipTest(d, { seed: 2, memo });
  assert.equal(memo.size, 2);
  // The normal method is not kept (it reads the differences in order).
  signFlipTest(mostlyZero(rng, 2000, 400, [-1, 1]), { memo });
  assert.equal(memo.size, 2);
});

Deno.test("the memo tells apart the same differences summed to another double in another order", () => {
  const rng = createRng(12);
  const d = mostlyZero(rng, 500, 40, [0.1, 0.7, -0.3, 1 / 3, -0.2]);
  const sum = (xs: readonly number[]) => xs.reduce((t, x) => t + x, 0);
  let other = [...d];
  for (let attempt = 0; attempt < 200 && sum(other) === sum(d); attempt++) {
    other = [...d].sort(() => rng() - 0.5);
  }
  assert.notEqual(sum(other), sum(d));
  const memo: SignFlipMemo = new Map();
  assert.deepStrictEqual(signFlipTest(d, { memo }), referenceSignFlip(d));
  assert.deepStrictEqual(signFlipTest(other, { memo }), referenceSignFlip(other));
  assert.equal(memo.size, 2);
});

Deno.test("mcnemarExact equals the straightforward sum, also where its terms underflow", () => {
  const rng = createRng(11);
  const cases: Array<[number, number]> = [[0, 0], [1, 0], [0, 7], [1500, 1700], [4000, 20], [
    20_000,
    21_000,
  ]];
  for (let i = 0; i < 300; i++) {
    cases.push([Math.floor(rng() * 3000), Math.floor(rng() * 3000)]);
  }
  for (const [a, b] of cases) assert.equal(mcnemarExact(a, b), referenceMcnemar(a, b), `${a} ${b}`);
});

Deno.test("pairedComparison (now through pairedDifferences) equals the reference, bounds and all", () => {
  const rng = createRng(8);
  for (let t = 0; t < 40; t++) {
    const n = pick(rng, [3, 12, 60, 250]);
    const top = pick(rng, [1, 10]);
    const a = Array.from({ length: n }, () => Math.round(rng() * top));
    const b = a.map((x) => (rng() < 0.7 ? x : Math.round(rng() * top)));
    const options = { bounds: [0, top] as const, ...(rng() < 0.5 ? { seed: t } : {}) };
    assert.deepStrictEqual(pairedComparison(a, b, options), referencePaired(a, b, options));
  }
});
