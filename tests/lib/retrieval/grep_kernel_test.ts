import assert from "node:assert/strict";
import { BATCH, KernelBytes, type PairByte } from "../../../lib/retrieval/grep_kernel.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";

function kernelOf(data: Uint8Array): KernelBytes {
  return new KernelBytes(data.length, (view) => {
    view.set(data);
    return data.length;
  });
}

/** Every start in [from, to] where both pair bytes match, by a plain loop. */
function naive(data: Uint8Array, a: PairByte, b: PairByte, from: number, to: number): number[] {
  const out: number[] = [];
  for (let s = from; s <= to; s++) {
    if ((data[s + a.at] | a.mask) === a.value && (data[s + b.at] | b.mask) === b.value) out.push(s);
  }
  return out;
}

/** All candidates, calling again after the last one while a batch may have stopped early. */
function all(kernel: KernelBytes, a: PairByte, b: PairByte, from: number, to: number): number[] {
  const out: number[] = [];
  let at = from;
  for (let calls = 0; calls < 10_000; calls++) {
    const found = kernel.pairCandidates(a, b, at, to);
    out.push(...found);
    if (found.length <= BATCH - 32) return out;
    at = found[found.length - 1] + 1;
  }
  throw new Error("pairCandidates did not finish in 10,000 calls");
}

Deno.test("the pair scan finds every place a naive loop does, at every data length and offset", () => {
  const random = prng(11);
  for (let length = 0; length <= 130; length++) {
    // Few byte values, so that matches are frequent, and any byte at all now and then.
    const data = Uint8Array.from(
      { length },
      () =>
        random() < 0.1
          ? Math.floor(random() * 256)
          : "aAbB k"[Math.floor(random() * 6)].charCodeAt(0),
    );
    const kernel = kernelOf(data);
    for (let q = 0; q < 12; q++) {
      const needle = 1 + Math.floor(random() * Math.min(40, length + 1));
      const at1 = Math.floor(random() * needle);
      const at2 = at1 + Math.floor(random() * (needle - at1));
      const pick = (at: number): PairByte => {
        const value = "abk "[Math.floor(random() * 4)].charCodeAt(0);
        return { at, value, mask: value !== 32 && random() < 0.7 ? 0x20 : 0 };
      };
      const a = pick(at1);
      const b = at2 === at1 ? a : pick(at2);
      const lastStart = length - needle;
      const from = Math.floor(random() * 3);
      assert.deepEqual(
        all(kernel, a, b, from, lastStart),
        naive(data, a, b, from, lastStart),
        `length ${length}, needle ${needle}, pair ${JSON.stringify([a, b])}, from ${from}`,
      );
    }
  }
});

Deno.test("a one-byte needle matches in the last byte, and a two-byte one in the last two", () => {
  for (let length = 1; length <= 70; length++) {
    const data = new Uint8Array(length).fill(0x2e);
    data[length - 1] = 0x51; // "Q"
    const kernel = kernelOf(data);
    const q: PairByte = { at: 0, value: 0x71, mask: 0x20 };
    assert.deepEqual([...kernel.pairCandidates(q, q, 0, length - 1)], [length - 1]);
    // Case-sensitive: "q" is not "Q".
    const exact: PairByte = { at: 0, value: 0x71, mask: 0 };
    assert.deepEqual([...kernel.pairCandidates(exact, exact, 0, length - 1)], []);
    if (length >= 2) {
      data[length - 2] = 0x70; // "pQ"
      const pair = kernelOf(data);
      const p: PairByte = { at: 0, value: 0x70, mask: 0x20 };
      assert.deepEqual([...pair.pairCandidates(p, { ...q, at: 1 }, 0, length - 2)], [length - 2]);
      // A last start one short of the match leaves it out.
      assert.deepEqual([...pair.pairCandidates(p, { ...q, at: 1 }, 0, length - 3)], []);
    }
  }
});

Deno.test("a full batch stops early and the next call resumes without gaps or repeats", () => {
  const length = BATCH * 5 + 17;
  const data = new Uint8Array(length).fill(0x61);
  const kernel = kernelOf(data);
  const a: PairByte = { at: 0, value: 0x61, mask: 0 };
  const first = kernel.pairCandidates(a, a, 0, length - 1);
  assert.ok(first.length > BATCH - 32 && first.length <= BATCH, `${first.length}`);
  assert.deepEqual([...first], Array.from({ length: first.length }, (_, i) => i));
  assert.deepEqual(all(kernel, a, a, 0, length - 1), Array.from({ length }, (_, i) => i));
});

Deno.test("the OR mask folds only ASCII letters: bytes from 0x80 up never match a letter", () => {
  const data = Uint8Array.from({ length: 256 }, (_, i) => i);
  const kernel = kernelOf(data);
  for (const letter of "az") {
    const value = letter.charCodeAt(0);
    const p: PairByte = { at: 0, value, mask: 0x20 };
    assert.deepEqual([...kernel.pairCandidates(p, p, 0, 255)], [value - 32, value]);
  }
});

Deno.test("KernelBytes grows once when the fill needs more room than the first guess", () => {
  let calls = 0;
  const kernel = new KernelBytes(4, (view) => {
    calls++;
    if (view.length < 100_000) return 100_000;
    view.fill(7);
    return 100_000;
  });
  assert.equal(calls, 2);
  assert.equal(kernel.bytes.length, 100_000);
  assert.ok(kernel.bytes.every((b) => b === 7));
});

Deno.test("KernelBytes refuses data that cannot fit in a wasm32 memory", () => {
  assert.throws(() => new KernelBytes(2 ** 32, () => 0), {
    name: "RangeError",
    message: "4294967296 bytes do not fit in a WebAssembly memory (4 GiB at most)",
  });
});
