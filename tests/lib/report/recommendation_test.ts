import assert from "node:assert/strict";
import {
  comparisonSentence,
  recommend,
  type RecommendationSystem,
} from "../../../lib/report/recommendation.ts";
import { pairOf, runStats, type ScoredLine } from "../../../lib/score/comparison.ts";

function lines(system: string, scores: number[]): ScoredLine[] {
  return scores.map((score, i) => ({
    system,
    question_id: `q${i + 1}`,
    repeat: 1,
    answer_score: score,
    passed: score === 1,
  }));
}

function sys(system: string, extra: Partial<RecommendationSystem>): RecommendationSystem {
  return {
    system,
    model: "mock:m",
    questions: 6,
    errors: 0,
    cost_per_question: null,
    p50_latency_ms: null,
    best_effort_rate: 0,
    budget_exhausted: 0,
    network_tools: [],
    ...extra,
  };
}

const STATS = runStats(["big", "small", "bad"], [
  ...lines("big", [1, 1, 1, 1, 1, 1]),
  ...lines("small", [1, 1, 1, 1, 1, 0]),
  ...lines("bad", [0, 0, 0, 0, 0, 0]),
]);

const SYSTEMS = [
  sys("big", { cost_per_question: 0.01, p50_latency_ms: 100 }),
  sys("small", { cost_per_question: 0.001, p50_latency_ms: 50 }),
  sys("bad", { cost_per_question: 0.0001, p50_latency_ms: 10 }),
];

Deno.test("recommend: cheapest and fastest come from the systems not significantly below the best", () => {
  const r = recommend(SYSTEMS, STATS);
  assert.equal(r.best?.system, "big");
  // small trails by 1/6 on one question (p = 1); bad trails on all six (p = 2/64): excluded.
  assert.equal(r.cheapest?.system, "small");
  assert.equal(r.fastest?.system, "small");
  assert.equal(r.cheapest?.versus_best?.p_value, 1);
  assert.ok(Math.abs(r.cheapest!.versus_best!.diff - -1 / 6) < 1e-12);
});

Deno.test("recommend warns when the top two cannot be separated, with the detectable difference", () => {
  const r = recommend(SYSTEMS, STATS);
  // mde = 2.8016 * s_d / sqrt(6), s_d = sd([0,0,0,0,0,1]) = sqrt(1/6): 0.467.
  assert.ok(
    r.warnings.includes(
      "big and small cannot be separated: with 6 questions, differences under 0.467 cannot be told from noise",
    ),
    r.warnings.join("\n"),
  );
  assert.equal(
    r.lines[0],
    "best score: big (score 1.000 [1.000, 1.000], $0.0100/question, p50 100.0 ms)",
  );
});

Deno.test("recommend warns about errors, best effort, budgets and network tools", () => {
  const r = recommend([
    sys("big", { errors: 1, best_effort_rate: 0.5, budget_exhausted: 2 }),
    sys("small", { network_tools: ["web_search"] }),
    sys("bad", {}),
  ], STATS);
  assert.deepEqual(r.warnings.slice(0, 4), [
    "big: 1 of 6 questions errored (17 %); its scores count them as 0",
    "big: 50 % of answers were best effort (a limit stopped the agent)",
    "big: a per-question budget ran out on 2 questions",
    "small uses network tools (web_search): its results depend on remote services and may not reproduce",
  ]);
});

Deno.test("recommend ranks nothing when no system has an answer score", () => {
  const r = recommend([sys("r", {})], runStats(["r"], []));
  assert.deepEqual(r, { best: null, cheapest: null, fastest: null, warnings: [], lines: [] });
});

Deno.test("comparisonSentence says beats, trails or not distinguishable with the interval", () => {
  const win = pairOf(STATS, "big", "bad")!;
  assert.equal(
    comparisonSentence(win),
    "big beats bad by 1.000 [+1.000, +1.000], p = 0.031 (n = 6)",
  );
  assert.match(comparisonSentence(pairOf(STATS, "bad", "big")!), /^bad trails big by 1\.000/);
  assert.match(
    comparisonSentence(pairOf(STATS, "small", "big")!),
    /^small is not distinguishable from big: difference -0\.167 \[-0\.\d+, 0\.000\], p = 1\.000 \(n = 6\)$/,
  );
});
