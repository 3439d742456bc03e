import assert from "node:assert/strict";
import { reciprocalRankFusion } from "../../../lib/dense/fusion.ts";

Deno.test("RRF matches a worked example computed by hand (k = 60)", () => {
  // BM25 ranks passages 3, 1, 2; the vector retriever ranks 1, 4, 3.
  //   p1: 1/(60+2) + 1/(60+1) = 0.016129 + 0.016393 = 0.032522
  //   p3: 1/(60+1) + 1/(60+3) = 0.016393 + 0.015873 = 0.032266
  //   p4: 1/(60+2)            = 0.016129
  //   p2: 1/(60+3)            = 0.015873
  const fused = reciprocalRankFusion([
    { items: [3, 1, 2], weight: 1 },
    { items: [1, 4, 3], weight: 1 },
  ], 60);
  assert.deepEqual(fused.map((x) => x.index), [1, 3, 4, 2]);
  const expected = [1 / 62 + 1 / 61, 1 / 61 + 1 / 63, 1 / 62, 1 / 63];
  fused.forEach((x, i) => assert.ok(Math.abs(x.score - expected[i]) < 1e-12));
  assert.ok(Math.abs(fused[0].score - 0.032522) < 1e-6);
});

Deno.test("RRF weights scale each ranking's share", () => {
  // Weight 2 on the vector ranking:
  //   p1: 1/62 + 2/61 = 0.048916; p3: 1/61 + 2/63 = 0.048139; p4: 2/62 = 0.032258; p2: 1/63 = 0.015873.
  const fused = reciprocalRankFusion([
    { items: [3, 1, 2], weight: 1 },
    { items: [1, 4, 3], weight: 2 },
  ], 60);
  assert.deepEqual(fused.map((x) => x.index), [1, 3, 4, 2]);
  assert.ok(Math.abs(fused[2].score - 2 / 62) < 1e-12);
  // Weight 0 on BM25: only the vector order is left.
  const vectorOnly = reciprocalRankFusion([
    { items: [3, 1, 2], weight: 0 },
    { items: [1, 4, 3], weight: 1 },
  ], 60);
  assert.deepEqual(vectorOnly.slice(0, 3).map((x) => x.index), [1, 4, 3]);
});

Deno.test("RRF breaks equal fused scores by passage order and cuts to the limit", () => {
  // p5 and p2 each appear once at rank 1: equal scores, p2 first.
  const fused = reciprocalRankFusion(
    [
      { items: [5], weight: 1 },
      { items: [2], weight: 1 },
    ],
    60,
    1,
  );
  assert.deepEqual(fused, [{ index: 2, score: 1 / 61 }]);
});

Deno.test("RRF refuses a non-positive k and negative weights", () => {
  assert.throws(() => reciprocalRankFusion([], 0), /k must be positive/);
  assert.throws(() => reciprocalRankFusion([{ items: [1], weight: -1 }], 60), /weights/);
});
