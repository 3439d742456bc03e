import assert from "node:assert/strict";
import { createHashingEmbedder } from "../../../lib/dense/hashing_embedder.ts";

const signal = new AbortController().signal;

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

Deno.test("hashing embedder is deterministic, L2-normalised and 384-dimensional by default", async () => {
  const embedder = createHashingEmbedder();
  assert.equal(embedder.id, "hashing:v1:384");
  const texts = ["Supersonic flow over a wedge", "supersonic flow over a wedge", ""];
  const a = await embedder.embed(texts, { kind: "passage", signal });
  const b = await createHashingEmbedder().embed(texts, { kind: "query", signal });
  assert.equal(a.dimensions, 384);
  assert.equal(a.vectors.length, 3 * 384);
  assert.deepEqual(a.vectors, b.vectors);
  const first = a.vectors.subarray(0, 384);
  assert.ok(Math.abs(cosine(first, first) - 1) < 1e-6);
  // Case does not matter (the tokenizer lower-cases); an empty text is the zero vector.
  assert.ok(Math.abs(cosine(first, a.vectors.subarray(384, 768)) - 1) < 1e-6);
  assert.ok(a.vectors.subarray(768).every((v) => v === 0));
  assert.deepEqual([a.tokens, a.cost_usd, a.cached], [0, 0, 0]);
});

Deno.test("hashing embedder ranks texts sharing words or word pieces above unrelated ones", async () => {
  const embedder = createHashingEmbedder(256);
  const { vectors } = await embedder.embed([
    "boundary layer transition on a flat plate",
    "transition of the boundary layers over flat plates",
    "aerodynamic heating of blunt bodies",
    "the price of bread in medieval towns",
  ], { kind: "passage", signal });
  const row = (i: number) => vectors.subarray(i * 256, (i + 1) * 256);
  const same = cosine(row(0), row(1));
  assert.ok(same > 0.6, `paraphrase ${same}`);
  assert.ok(same > cosine(row(0), row(2)));
  assert.ok(Math.abs(cosine(row(0), row(3))) < 0.3);
});

Deno.test("hashing embedder refuses impossible dimensions and honours an aborted signal", async () => {
  assert.throws(() => createHashingEmbedder(0), RangeError);
  assert.throws(() => createHashingEmbedder(20_000), RangeError);
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(
    createHashingEmbedder(8).embed(["x"], { kind: "query", signal: controller.signal }),
    /stop/,
  );
});

Deno.test("hashing embedder output is pinned (a change alters every --mock result)", async () => {
  // "Swept wings" -> tokens swept, wing: 2 words (weight 1) and the 9 trigrams of <swept> and
  // <wing> (weight 0.5), signed, in 16 buckets.
  const { vectors } = await createHashingEmbedder(16).embed(["Swept wings"], {
    kind: "query",
    signal,
  });
  // The bucket sums are ±0.5 (nine) and ±1 (two): squares sum to 17/4, so ±0.5 -> 1/sqrt(17).
  const a = 0.242536;
  const b = 0.485071;
  const expected = [0, -a, -b, -a, -a, a, 0, a, 0, -b, -a, 0, 0, -a, -a, -a];
  assert.deepEqual(Array.from(vectors).map((x) => Number(x.toFixed(6))), expected);
});
