import assert from "node:assert/strict";
import {
  metricLabel,
  pClause,
  signed,
  small,
  tooFewClause,
} from "../../../lib/report/verdict_text.ts";

Deno.test("verdict text: a detectable difference that would print as 0.000 keeps two digits", () => {
  assert.equal(small(0.184), "0.184");
  assert.equal(small(0.0004), "0.00040");
  assert.equal(small(3.2e-7), "3.2e-7");
  assert.equal(small(0), "0.000");
});

Deno.test("verdict text: signs, p-values and metric names as printed", () => {
  assert.equal(signed(0.0951), "+0.095");
  assert.equal(signed(-0.0951), "-0.095");
  // Anything that rounds to zero is zero, never "-0.000" or "+0.000".
  assert.equal(signed(-1e-9), "0.000");
  assert.equal(signed(4e-4), "0.000");
  assert.equal(pClause(0.0312), "p = 0.031");
  assert.equal(pClause(0.0004), "p < 0.001");
  assert.equal(metricLabel("answer_score"), "score");
  assert.equal(metricLabel("ndcg@10"), "nDCG@10");
  assert.equal(metricLabel("map"), "MAP");
  assert.equal(metricLabel("recall@100"), "recall@100");
});

Deno.test("verdict text: too few differing questions, one, some or all of them", () => {
  const c = (differing: number, n: number) => ({
    n,
    differing,
    diff: { mean: 0, low: 0, high: 0 },
    p_value: 1,
  });
  assert.equal(
    tooFewClause(c(1, 21)),
    "only 1 of 21 questions differs, and no test at 5 % can decide with fewer than 6 differing",
  );
  assert.equal(
    tooFewClause(c(4, 4)),
    "all 4 questions differ, but no test at 5 % can decide with fewer than 6 differing",
  );
});
