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
  // small trails on one question (p = 1); bad trails on all six (p = 2/64): excluded.
  assert.equal(r.cheapest?.system, "small");
  assert.equal(r.fastest?.system, "small");
  assert.equal(r.cheapest?.versus_best?.p_value, 1);
  assert.equal(r.cheapest?.versus_best?.verdict, "too_few");
  assert.ok(Math.abs(r.cheapest!.versus_best!.diff - -1 / 6) < 1e-12);
});

Deno.test("recommend: every line says what choosing its system gives up", () => {
  const r = recommend(SYSTEMS, STATS);
  assert.deepEqual(r.lines.slice(0, 3), [
    "best score: big (score 1.000 [1.000, 1.000], $0.0100/question, p50 100.0 ms); it costs 10× as much per question as small and has 2× the p50 latency of small, which it is not shown to beat",
    "cheapest not significantly below the best: small (score 0.833 [0.500, 1.000], $0.00100/question, p50 50.0 ms): gives up 0.167 of score (-0.167 [-1.000, 0.000], p = 1.000 against big; only 1 of 6 questions differs, and no test at 5 % can decide with fewer than 6 differing), for 0.1× the best's cost per question",
    "fastest not significantly below the best: small (score 0.833 [0.500, 1.000], $0.00100/question, p50 50.0 ms): gives up 0.167 of score (-0.167 [-1.000, 0.000], p = 1.000 against big; only 1 of 6 questions differs, and no test at 5 % can decide with fewer than 6 differing), for 0.5× the best's p50 latency",
  ]);
});

Deno.test("recommend: when the best is also the cheapest, the line says no system within noise costs less", () => {
  const r = recommend([
    sys("big", { cost_per_question: 0.001, p50_latency_ms: 100 }),
    sys("small", { cost_per_question: 0.01, p50_latency_ms: 50 }),
    sys("bad", { cost_per_question: 0.0001, p50_latency_ms: 10 }),
  ], STATS);
  assert.equal(r.cheapest?.system, "big");
  assert.ok(
    r.lines.includes(
      "cheapest not significantly below the best: big, the best itself: no system within noise of it costs less",
    ),
    r.lines.join("\n"),
  );
  // The best line names what it gives up: the latency of small, which it is not shown to beat.
  assert.match(r.lines[0], /; it has 2× the p50 latency of small, which it is not shown to beat$/);
});

Deno.test("recommend: an undecided pair says how large a difference this test could tell", () => {
  // 12 questions: mid loses 6 and wins 1 against top (p = 2 · 8/128 = 0.125), so 7 differ.
  const top = [1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1];
  const mid = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1];
  const stats = runStats(["top", "mid"], [...lines("top", top), ...lines("mid", mid)]);
  const r = recommend([sys("top", {}), sys("mid", {})], stats);
  const warning = r.warnings.find((w) => w.startsWith("top and mid cannot be separated"));
  assert.ok(warning, r.warnings.join("\n"));
  const pair = pairOf(stats, "top", "mid")!.score;
  assert.ok(Math.abs(pair.p_value - 0.125) < 1e-12);
  assert.ok(pair.diff.low <= 0 && pair.diff.high > 0);
  assert.ok(pair.mde! >= pair.diff.mean, "an observed difference under the MDE is not significant");
  assert.match(
    warning,
    /^top and mid cannot be separated: difference \+0\.417 \[[-0-9.]+, \+[0-9.]+\], p = 0\.125 \(n = 12\); differences under 0\.\d{3} cannot be told from noise here$/,
  );
});

Deno.test("recommend warns when the top two cannot be separated, in the words of their comparison", () => {
  const r = recommend(SYSTEMS, STATS);
  assert.ok(
    r.warnings.includes(
      "big and small cannot be separated: only 1 of 6 questions differs, and no test at 5 % can decide with fewer than 6 differing; difference +0.167 [0.000, +1.000], p = 1.000",
    ),
    r.warnings.join("\n"),
  );
  // No detectable difference is quoted where no test can decide: never "under 0.000".
  assert.ok(!r.lines.some((l) => /under 0\.000/.test(l)), r.lines.join("\n"));
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

Deno.test("recommend names a system whose every question errored first, with its first error", () => {
  const r = recommend([
    sys("big", {}),
    sys("small", {}),
    sys("bad", {
      errors: 6,
      first_error: "Model API at http://127.0.0.1:1/v1 could not be reached: connection refused.",
    }),
  ], STATS);
  const failed =
    "bad: every question errored (6 of 6), so its figures mean nothing; the first error: Model API at http://127.0.0.1:1/v1 could not be reached: connection refused.";
  assert.deepEqual(r.failed, [failed]);
  assert.equal(r.warnings[0], failed);
  assert.equal(r.lines[0], `warning: ${failed}`);
  // Not also warned about as a share of errors.
  assert.ok(!r.warnings.some((w) => w.startsWith("bad: 6 of 6")), r.warnings.join("\n"));
});

Deno.test("recommend ranks nothing when no system has an answer score", () => {
  const r = recommend([sys("r", {})], runStats(["r"], []));
  assert.deepEqual(r, {
    metric: "answer_score",
    best: null,
    cheapest: null,
    fastest: null,
    failed: [],
    warnings: [],
    lines: [],
  });
});

Deno.test("recommend ranks systems without answers on a retrieval metric when the statistics are of one", () => {
  const retrieval = (system: string, values: number[]): ScoredLine[] =>
    values.map((v, i) => ({
      system,
      question_id: `q${i + 1}`,
      repeat: 1,
      answer_score: null,
      passed: null,
      retrieval: { metrics: { "ndcg@10": v } },
    }));
  const stats = runStats(
    ["bm25", "vector"],
    [
      ...retrieval("bm25", [0.9, 0.8, 0.7, 0.9, 0.6, 0.8, 0.7]),
      ...retrieval("vector", [0.2, 0.1, 0.3, 0.2, 0.1, 0.3, 0.2]),
    ],
    { metric: "ndcg@10" },
  );
  const r = recommend([
    sys("bm25", { cost_per_question: 0, retrieval: { "ndcg@10": 0.771, "recall@100": 0.9 } }),
    sys("vector", { cost_per_question: 0 }),
  ], stats);
  assert.equal(r.metric, "ndcg@10");
  assert.equal(r.best?.system, "bm25");
  assert.deepEqual(r.best?.retrieval, { "ndcg@10": 0.771, "recall@100": 0.9 });
  assert.match(r.lines[0], /^best nDCG@10: bm25 \(nDCG@10 0\.771 /);
});

Deno.test("comparisonSentence: beats, trails, cannot be separated (too few differ) or no difference", () => {
  const win = pairOf(STATS, "big", "bad")!;
  assert.equal(
    comparisonSentence(win),
    "big beats bad by 1.000 [+1.000, +1.000], p = 0.031 (n = 6)",
  );
  assert.match(comparisonSentence(pairOf(STATS, "bad", "big")!), /^bad trails big by 1\.000/);
  assert.equal(
    comparisonSentence(pairOf(STATS, "small", "big")!),
    "small and big cannot be separated: only 1 of 6 questions differs, and no test at 5 % can decide with fewer than 6 differing; difference -0.167 [-1.000, 0.000], p = 1.000",
  );
  const same = runStats(["x", "y"], [...lines("x", [1, 0, 1]), ...lines("y", [1, 0, 1])]);
  assert.equal(
    comparisonSentence(pairOf(same, "x", "y")!),
    "x and y do not differ on any of the 3 questions",
  );
});
