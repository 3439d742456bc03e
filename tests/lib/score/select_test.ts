import assert from "node:assert/strict";
import { select } from "../../../lib/score/select.ts";
import { createRng } from "../../../lib/util/prng.ts";

Deno.test("select finds the value a sort puts at the index: ties, infinities, runs and one value", () => {
  const rng = createRng(17);
  const makers: Array<(n: number) => number[]> = [
    (n) => Array.from({ length: n }, () => rng()),
    (n) => Array.from({ length: n }, () => Math.floor(rng() * 4) / 4),
    (n) => Array.from({ length: n }, (_, i) => i),
    (n) => Array.from({ length: n }, (_, i) => n - i),
    (n) => Array.from({ length: n }, () => 0.5),
    (n) => Array.from({ length: n }, (_, i) => (i === 0 ? -Infinity : i === 1 ? Infinity : rng())),
  ];
  for (let t = 0; t < 300; t++) {
    const n = 1 + Math.floor(rng() * 300);
    const values = makers[t % makers.length](n);
    const sorted = [...values].sort((a, b) => a - b);
    const index = Math.floor(rng() * n);
    assert.equal(select(Float64Array.from(values), index), sorted[index], `case ${t}`);
  }
});
