import assert from "node:assert/strict";
import { bitLength, gcd, log10Abs } from "../../../lib/calc/bigint_math.ts";

/** Deterministic pseudo-random numbers (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomInteger(next: () => number, digits: number): bigint {
  let text = String(1 + Math.floor(next() * 9));
  for (let i = 1; i < digits; i++) text += String(Math.floor(next() * 10));
  return BigInt(text);
}

function euclid(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

Deno.test("bitLength counts bits exactly around every power of two", () => {
  assert.equal(bitLength(0n), 0);
  assert.equal(bitLength(-255n), 8);
  for (let i = 0; i < 12_000; i += 7) {
    const power = 1n << BigInt(i);
    assert.equal(bitLength(power), i + 1, `2^${i}`);
    assert.equal(bitLength(power - 1n), i, `2^${i} - 1`);
  }
});

Deno.test("log10Abs is accurate for small and huge integers", () => {
  assert.equal(log10Abs(1000n), 3);
  assert.equal(log10Abs(-1000n), 3);
  assert.ok(Math.abs(log10Abs(10n ** 2999n) - 2999) < 1e-9);
  assert.equal(log10Abs(0n), -Infinity);
});

Deno.test("gcd (Lehmer) agrees with Euclid on random and structured inputs", () => {
  const next = random(42);
  for (let i = 0; i < 400; i++) {
    const common = randomInteger(next, 1 + Math.floor(next() * 60));
    const a = randomInteger(next, 1 + Math.floor(next() * 400)) * (i % 3 === 0 ? 1n : common);
    const b = randomInteger(next, 1 + Math.floor(next() * 400)) * common;
    const sign = i % 4 === 1 ? -1n : 1n;
    assert.equal(gcd(sign * a, b), euclid(a, b), `case ${i}`);
  }
  const big = randomInteger(next, 3000);
  assert.equal(gcd(big * 6n, big * 4n), big * 2n);
  assert.equal(gcd(big, 1n), 1n);
  assert.equal(gcd(0n, big), big);
  assert.equal(gcd(big, 0n), big);
  assert.equal(gcd(0n, 0n), 0n);
  // Consecutive Fibonacci numbers: the most Euclidean steps for their size.
  let [f1, f2] = [1n, 1n];
  for (let i = 0; i < 5000; i++) [f1, f2] = [f2, f1 + f2];
  assert.equal(gcd(f2, f1), 1n);
});
