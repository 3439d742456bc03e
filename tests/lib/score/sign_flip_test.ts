import assert from "node:assert/strict";
import {
  ALPHA,
  MIN_DIFFERING,
  NORMAL_MIN_N,
  normalCdf,
  signFlipTest,
  Z_975,
} from "../../../lib/score/sign_flip.ts";
import { mcnemarExact, pairedComparison, verdictOf } from "../../../lib/score/significance.ts";
import { createRng } from "../../../lib/util/prng.ts";

/** p(δ) by the definition: every one of the 2^n sign assignments of d − δ. */
function bruteP(d: readonly number[], delta: number): number {
  const n = d.length;
  const centred = d.map((x) => x - delta);
  const observed = Math.abs(centred.reduce((s, x) => s + x, 0));
  let hits = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += (mask >>> i) & 1 ? centred[i] : -centred[i];
    if (Math.abs(s) >= observed - 1e-9) hits++;
  }
  return hits / 2 ** n;
}

function randomDiffs(rng: () => number, n: number, kind: "binary" | "grades" | "any"): number[] {
  return Array.from({ length: n }, () => {
    const u = rng();
    if (kind === "binary") return u < 0.5 ? 0 : u < 0.8 ? 1 : -1;
    if (kind === "grades") return Math.round((rng() * 2 - 1) * 4) / 4;
    return Math.round((rng() * 2 - 1) * 1000) / 1000;
  });
}

Deno.test("sign-flip test: p(0) and both interval ends match the test computed by its definition", () => {
  const rng = createRng(11);
  for (let trial = 0; trial < 60; trial++) {
    const n = 6 + (trial % 5);
    const kind = (["binary", "grades", "any"] as const)[trial % 3];
    const d = randomDiffs(rng, n, kind);
    if (d.every((x) => x === 0)) continue;
    const t = signFlipTest(d, { bounds: [-10, 10] });
    assert.equal(t.method, "exact");
    const label = `${JSON.stringify(d)} -> ${JSON.stringify(t)}`;
    assert.ok(Math.abs(t.p_value - bruteP(d, 0)) < 1e-9, label);
    // Each end is accepted, and just past it the test rejects (unless the end is the bound).
    for (const [end, outward] of [[t.low, -1e-6], [t.high, 1e-6]]) {
      if (Math.abs(end) === 10) continue;
      assert.ok(bruteP(d, end) >= ALPHA - 1e-9, `${label}: p at ${end} is ${bruteP(d, end)}`);
      assert.ok(bruteP(d, end + outward) < ALPHA, `${label}: p past ${end}`);
    }
  }
});

Deno.test("sign-flip test: the verdict and the interval agree on every kind of data and every method", () => {
  const rng = createRng(7);
  const methods = new Set<string>();
  for (let trial = 0; trial < 90; trial++) {
    const n = [8, 21, 40, 120, 400][trial % 5];
    const kind = (["binary", "grades", "any"] as const)[trial % 3];
    // A shift so that some data sets are significant and some are not.
    const shift = (trial % 4) * 0.05;
    const d = randomDiffs(rng, n, kind).map((x) => Math.max(-1, Math.min(1, x + shift)));
    const t = signFlipTest(d, { seed: trial, resamples: 2000 });
    methods.add(t.method);
    const excludesZero = t.low > 0 || t.high < 0;
    assert.equal(t.p_value < ALPHA, excludesZero, `${t.method} ${JSON.stringify(t)}`);
    assert.ok(t.low <= t.mean && t.mean <= t.high, JSON.stringify(t));
  }
  assert.deepEqual([...methods].sort(), ["exact", "monte_carlo", "normal"]);
});

Deno.test("sign-flip test: five questions one way of 21 cannot decide; six can (2/64)", () => {
  assert.equal(MIN_DIFFERING, 6);
  const five = pairedComparison(
    Array.from({ length: 21 }, (_, i) => (i < 5 ? 1 : 1)),
    Array.from({ length: 21 }, (_, i) => (i < 5 ? 0 : 1)),
  );
  // The old report printed "+0.238 [+0.048, +0.429], p = 0.063": an interval that excluded 0
  // beside a p-value that did not.
  assert.equal(five.differing, 5);
  assert.ok(Math.abs(five.p_value - 1 / 16) < 1e-12, String(five.p_value));
  assert.ok(five.diff.low <= 0, JSON.stringify(five.diff));
  assert.equal(five.decidable, false);
  assert.equal(five.mde, null);
  assert.equal(verdictOf(five), "too_few");
  const six = pairedComparison(
    Array.from({ length: 21 }, () => 1),
    Array.from({ length: 21 }, (_, i) => (i < 6 ? 0 : 1)),
  );
  assert.ok(Math.abs(six.p_value - 2 / 64) < 1e-12);
  assert.ok(six.diff.low > 0);
  assert.equal(verdictOf(six), "higher");
  // The detectable difference is the distance from the mean to the interval's far end: an
  // observed difference under it is not significant, by construction.
  assert.ok(six.mde! >= six.diff.mean - six.diff.low);
});

Deno.test("sign-flip test: differences within 1e-9 of zero are no difference", () => {
  const a = [0.1 + 0.2, 0.7, 1 / 3];
  const b = [0.3, 0.7000000000000001, 0.3333333333333333];
  const c = pairedComparison(a, b);
  assert.equal(c.differing, 0);
  assert.deepEqual(c.diff, { mean: 0, low: 0, high: 0 });
  assert.equal(verdictOf(c), "same");
});

Deno.test("sign-flip test: ties of |A| and |D| count as at least as extreme, whatever the rounding", () => {
  // 0.1 + 0.2 and 0.3 are one difference in exact arithmetic: p is the same as for equal values.
  const noisy = signFlipTest([0.1 + 0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3 - 0.6]);
  const exact = signFlipTest([0.3, 0.3, 0.3, 0.3, 0.3, 0.3, -0.3]);
  assert.ok(Math.abs(noisy.p_value - exact.p_value) < 1e-12, `${noisy.p_value} ${exact.p_value}`);
  // Ends are reported without the rounding slack: 0.5, not 0.49999999999999994.
  assert.deepEqual(
    pairedComparison([1, 1, 1, 1, 1, 1], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]).diff,
    { mean: 0.5, low: 0.5, high: 0.5 },
  );
});

Deno.test("sign-flip test: the Monte Carlo p-value is close to the exact one", () => {
  // 20 distinct differences: 2^20 assignments, past the exact limit.
  const d = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? -1 : 1) * (0.1 + i / 40));
  const t = signFlipTest(d, { seed: 3 });
  assert.equal(t.method, "monte_carlo");
  const exact = bruteP(d, 0);
  assert.ok(Math.abs(t.p_value - exact) < 0.01, `${t.p_value} vs ${exact}`);
});

Deno.test("sign-flip test: binary differences stay exact at 1,000 questions (the sign test)", () => {
  // 540 gains and 460 losses of 1: the sign-flip test of ±1 is the two-sided sign test.
  const d = Array.from({ length: 1000 }, (_, k) => (k < 540 ? 1 : -1));
  const t = signFlipTest(d);
  assert.equal(t.method, "exact");
  const sign = mcnemarExact(460, 540);
  assert.ok(Math.abs(t.p_value - sign) < 1e-9, `${t.p_value} vs ${sign}`);
  assert.ok(t.low > 0 && t.p_value < ALPHA);
});

Deno.test("sign-flip test: many distinct differences use the normal approximation and its interval", () => {
  const d = Array.from({ length: 1000 }, (_, i) => ((i * 37) % 100) / 100 - 0.45);
  const t = signFlipTest(d);
  assert.equal(t.method, "normal");
  assert.ok(t.differing >= NORMAL_MIN_N);
  const n = d.length;
  const mean = d.reduce((a, b) => a + b, 0) / n;
  const s = d.reduce((a, x) => a + (x - mean) ** 2, 0);
  const z = n * Math.abs(mean) / Math.sqrt(s + n * mean * mean);
  assert.ok(Math.abs(t.p_value - 2 * (1 - normalCdf(z))) < 1e-12);
  const half = Z_975 * Math.sqrt(s / (n * (n - Z_975 ** 2)));
  assert.ok(Math.abs(t.low - (mean - half)) < 1e-12 && Math.abs(t.high - (mean + half)) < 1e-12);
  assert.equal(t.p_value < ALPHA, t.low > 0);
});

Deno.test("sign-flip test: with fewer than six questions no mean difference is rejected", () => {
  const t = signFlipTest([1, 1, 1, 1, 1]);
  assert.equal(t.p_value, 2 / 32);
  assert.deepEqual([t.low, t.high], [-1, 1]);
});

Deno.test("sign-flip test refuses what is not a list of finite differences", () => {
  assert.throws(() => signFlipTest([]), /at least one question/);
  assert.throws(() => signFlipTest([1, NaN]), /not finite: NaN/);
  assert.throws(() => signFlipTest([1], { bounds: [0.5, 1] }), /bounds must hold 0/);
});
