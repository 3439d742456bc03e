import assert from "node:assert/strict";
import { VectorIndex } from "../../../lib/dense/vector_index.ts";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomVectors(n: number, d: number, seed: number): Float32Array {
  const next = rng(seed);
  const v = new Float32Array(n * d);
  // A shared component makes the vectors alike, like real embeddings.
  for (let i = 0; i < v.length; i++) v[i] = next() - 0.5 + (i % d < 5 ? 0.4 : 0);
  return v;
}

/** Cosine top-k by a full sort, in float64. */
function bruteForce(vectors: Float32Array, d: number, query: Float32Array, k: number) {
  const n = vectors.length / d;
  const norm = (a: Float32Array, o: number) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += a[o + j] * a[o + j];
    return Math.sqrt(s);
  };
  const qn = norm(query, 0);
  const scored = [];
  for (let i = 0; i < n; i++) {
    let dot = 0;
    for (let j = 0; j < d; j++) dot += vectors[i * d + j] * query[j];
    const xn = norm(vectors, i * d);
    scored.push({ index: i, score: xn === 0 || qn === 0 ? 0 : dot / (xn * qn) });
  }
  return scored.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, k);
}

for (const [n, d] of [[1000, 384], [333, 37], [9, 5], [2050, 64]]) {
  Deno.test(`vector top-k equals a brute-force sort (${n} × ${d}, both modes)`, () => {
    const vectors = randomVectors(n, d, n + d);
    const index = new VectorIndex(vectors, d);
    const next = rng(99);
    for (let q = 0; q < 20; q++) {
      const query = new Float32Array(d).map(() => next() - 0.5);
      for (const k of [1, 10, 50]) {
        const want = bruteForce(vectors, d, query, k);
        for (const mode of ["pruned", "scan"] as const) {
          const got = index.search(query, k, { mode });
          assert.deepEqual(got.map((h) => h.index), want.map((h) => h.index), `${mode} k=${k}`);
          got.forEach((h, i) => assert.ok(Math.abs(h.score - want[i].score) < 1e-5));
        }
      }
    }
  });
}

Deno.test("the pruned search scores only a few rows in f32 and returns what the scan does", () => {
  const d = 128;
  const vectors = randomVectors(5000, d, 3);
  const index = new VectorIndex(vectors, d);
  const query = vectors.slice(17 * d, 18 * d);
  const scan = index.search(query, 10, { mode: "scan" });
  assert.equal(index.lastSearch.scored, 5000);
  const pruned = index.search(query, 10);
  assert.equal(index.lastSearch.mode, "pruned");
  assert.ok(index.lastSearch.scored < 500, `scored ${index.lastSearch.scored}`);
  assert.deepEqual(pruned, scan);
  assert.equal(pruned[0].index, 17);
});

Deno.test("equal vectors tie by row order, and the search falls back to the scan", () => {
  const d = 16;
  const vectors = new Float32Array(40 * d).fill(0.25);
  const index = new VectorIndex(vectors, d);
  const hits = index.search(new Float32Array(d).fill(1), 5);
  assert.deepEqual(hits.map((h) => h.index), [0, 1, 2, 3, 4]);
  assert.equal(index.lastSearch.mode, "scan");
  hits.forEach((h) => assert.ok(Math.abs(h.score - 1) < 1e-6));
});

Deno.test("zero rows score 0 and a zero query ranks by row order", () => {
  const d = 4;
  const vectors = new Float32Array([0, 0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 0]);
  const index = new VectorIndex(vectors, d);
  assert.deepEqual(index.search(new Float32Array([2, 0, 0, 0]), 3), [
    { index: 1, score: 1 },
    { index: 0, score: 0 },
    { index: 2, score: -1 },
  ]);
  assert.deepEqual(index.search(new Float32Array(d), 2).map((h) => h.index), [0, 1]);
});

Deno.test("a k beyond the index size returns every row; k = 0 none", () => {
  const index = new VectorIndex(randomVectors(3, 8, 1), 8);
  assert.equal(index.search(new Float32Array(8).fill(1), 10).length, 3);
  assert.deepEqual(index.search(new Float32Array(8).fill(1), 0), []);
});

Deno.test("the index refuses bad shapes and non-finite values with clear errors", () => {
  assert.throws(
    () => new VectorIndex(new Float32Array(10), 3),
    /not a whole number of 3-dimension/,
  );
  assert.throws(() => new VectorIndex(new Float32Array([1, NaN]), 2), /vector 0 has a non-finite/);
  const index = new VectorIndex(new Float32Array(8), 4);
  assert.throws(() => index.search(new Float32Array(3), 1), /query has 3 dimensions, the index 4/);
  assert.throws(
    () => index.search(new Float32Array([1, Infinity, 0, 0]), 1),
    /non-finite value at 1/,
  );
});
