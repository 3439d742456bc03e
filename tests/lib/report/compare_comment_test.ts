import assert from "node:assert/strict";
import {
  type CompareInput,
  compareJson,
  compareMarkdown,
  detectable,
} from "../../../lib/report/compare_comment.ts";
import { comparisonSentence } from "../../../lib/report/verdict_text.ts";
import { metricDeltas, runDelta } from "../../../lib/score/run_delta.ts";
import { pairedComparison } from "../../../lib/score/significance.ts";

/** Lines of `system` with answer scores `scores` and nDCG@10 `ndcg`. */
function lines(system: string, scores: number[], ndcg = scores) {
  return scores.map((s, i) => ({
    system,
    question_id: `q${i}`,
    repeat: 1,
    answer_score: s,
    cost_usd: 0.001,
    latency_ms: 10,
    retrieval: { metrics: { "ndcg@10": ndcg[i] } },
  }));
}

function input(evil: string, threshold: number | null): CompareInput {
  const a = [...lines(evil, Array(12).fill(1)), ...lines("steady", Array(12).fill(1))];
  const b = [
    ...lines(evil, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1], Array(12).fill(0.5)),
    ...lines("steady", Array(12).fill(1)),
  ];
  const delta = runDelta(a, b);
  return {
    baseline: { dir: "runs/a", name: "bench" },
    candidate: { dir: "runs/b", name: "bench" },
    delta,
    retrieval: metricDeltas(a, b, "ndcg@10"),
    threshold,
    regressions: threshold === null ? [] : [evil],
    warnings: [`"runs/a" is a --mock run | and <b>live</b>`],
  };
}

Deno.test("detectable: the larger of the threshold and the minimum detectable difference; none when undecidable", () => {
  const decided = pairedComparison([0, 0, 0, 0, 0, 0, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  assert.ok(decided.mde !== null && decided.mde > 0.05);
  assert.equal(detectable(decided, 0.05), decided.mde);
  assert.equal(detectable(decided, 0.9), 0.9);
  assert.equal(detectable(decided, null), decided.mde);
  const tooFew = pairedComparison([0, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  assert.equal(detectable(tooFew, 0.05), null);
});

Deno.test("compareJson says what the one test says: verdict, interval and the shared sentence agree", () => {
  const doc = compareJson(input("sys", 0.05));
  const sys = doc.systems[0];
  assert.equal(sys.verdict, "lower");
  assert.ok(sys.change!.high < 0 && sys.p_value! < 0.05);
  const pair = pairedComparison([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1], Array(12).fill(1));
  assert.equal(
    sys.sentence,
    comparisonSentence({ a: "sys in B", b: "sys in A", score: pair, accuracy: null }),
  );
  assert.deepEqual(sys.retrieval.map((r) => [r.metric, r.verdict]), [["ndcg@10", "lower"]]);
  assert.equal(doc.systems[1].verdict, "same");
  assert.equal(doc.systems[1].smallest_detectable_regression, null);
  assert.deepEqual(doc.gate, { threshold: 0.05, passed: false, regressions: ["sys"] });
});

Deno.test("compareMarkdown keeps a hostile system name and warning from breaking the table or adding markup", () => {
  const evil = "a|b\n<img src=x onerror=alert(1)>";
  const md = compareMarkdown(input(evil, 0.05));
  assert.doesNotMatch(md, /<img/);
  assert.match(
    md,
    /\| \*\*a\\\|b &lt;img src=x onerror=alert\(1\)>\*\* \(regression\) \| score \|/,
  );
  assert.match(md, /> \*\*Warning:\*\* "runs\/a" is a --mock run \\\| and &lt;b>live&lt;\/b>/);
  // Every table row has as many cells as its header.
  for (const table of md.split("\n\n").filter((b) => b.startsWith("| "))) {
    const rows = table.split("\n").map((r) => r.replaceAll("\\|", "").split("|").length);
    assert.ok(rows.every((n) => n === rows[0]), table);
  }
});
