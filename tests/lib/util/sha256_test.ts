import assert from "node:assert/strict";
import { createHash } from "node:crypto";

type Sha256Module = typeof import("../../../lib/util/sha256.ts");

/** A fresh instance of the module (its own native/JavaScript state), by a distinct URL. */
function freshModule(tag: string): Promise<Sha256Module> {
  return import(`../../../lib/util/sha256.ts?${tag}`);
}

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const TEXTS = [
  "",
  "abc",
  "a".repeat(55),
  "a".repeat(64),
  "ragbench — ünïcödé, 日本語, emoji 🎯",
  "lone surrogate \ud800 and \udfff end",
  JSON.stringify({ __proto__: { x: 1 }, deep: [1, 2, { a: "b" }] }),
];

Deno.test("sha256 in JavaScript gives node:crypto's digests, hex and base64, for text and bytes", async () => {
  const m = await freshModule("js");
  assert.equal(m.nativeSha256InUse(), false);
  assert.equal(m.sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  for (const text of TEXTS) {
    assert.equal(m.sha256(text), createHash("sha256").update(text).digest("hex"), text);
    assert.equal(m.sha256(text, "base64"), createHash("sha256").update(text).digest("base64"));
  }
  const data = bytes(300_000, 7);
  assert.equal(m.sha256(data), createHash("sha256").update(data).digest("hex"));
  assert.equal(m.nativeSha256InUse(), false, "nothing switched to node:crypto on its own");
});

Deno.test("the incremental hasher gives the one-shot digest whatever the chunks, before and after the switch", async () => {
  const m = await freshModule("incremental");
  const data = bytes(1_200_000, 11);
  const expected = createHash("sha256").update(data).digest("hex");
  for (const phase of ["javascript", "native"]) {
    if (phase === "native") await m.useNativeSha256();
    assert.equal(m.nativeSha256InUse(), phase === "native");
    for (const chunk of [1, 63, 64, 65, 1 << 20]) {
      if (chunk === 1 && phase === "native") continue; // a byte at a time once is enough
      const hash = m.createSha256();
      // A reused buffer, as a file read fills one: the hasher must not keep a reference.
      const buffer = new Uint8Array(chunk);
      for (let at = 0; at < data.length; at += chunk) {
        const piece = data.subarray(at, Math.min(at + chunk, data.length));
        buffer.set(piece);
        hash.update(buffer.subarray(0, piece.length));
      }
      assert.equal(hash.hex(), expected, `${phase}, chunks of ${chunk}`);
    }
  }
});

Deno.test("useNativeSha256 switches every later hash to node:crypto, once, with the same digests", async () => {
  const m = await freshModule("native");
  const before = TEXTS.map((t) => m.sha256(t));
  const first = m.useNativeSha256();
  assert.equal(m.useNativeSha256(), first, "loaded once");
  await first;
  assert.equal(m.nativeSha256InUse(), true);
  assert.deepEqual(TEXTS.map((t) => m.sha256(t)), before);
});
