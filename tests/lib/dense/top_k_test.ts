import assert from "node:assert/strict";
import { TopK } from "../../../lib/dense/top_k.ts";

function bruteForce(scores: number[], k: number): number[] {
  return scores.map((score, index) => ({ score, index }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, k).map((x) => x.index);
}

Deno.test("TopK keeps the same k items as a full sort, ties by lower index", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const k of [0, 1, 3, 10, 50]) {
    // Few distinct values, so ties are common.
    const scores = Array.from({ length: 500 }, () => Math.floor(next() * 20));
    const top = new TopK(k);
    scores.forEach((s, i) => top.push(s, i));
    assert.deepEqual(top.sorted().map((x) => x.index), bruteForce(scores, k));
  }
});

Deno.test("TopK threshold is -Infinity until k items are held", () => {
  const top = new TopK(2);
  assert.equal(top.threshold, -Infinity);
  top.push(5, 0);
  assert.equal(top.threshold, -Infinity);
  top.push(3, 1);
  assert.equal(top.threshold, 3);
  top.push(4, 2);
  assert.equal(top.threshold, 4);
  assert.deepEqual(top.sorted(), [{ index: 0, score: 5 }, { index: 2, score: 4 }]);
});

Deno.test("TopK refuses a negative k", () => {
  assert.throws(() => new TopK(-1), RangeError);
});
