import assert from "node:assert/strict";
import {
  BOOTSTRAP_RESAMPLES,
  bootstrapMean,
  createRng,
  flipRate,
  mcnemarExact,
  normalCdf,
  pairedComparison,
  signFlipPValue,
  STATS_SEED,
  verdictOf,
} from "../../../lib/score/significance.ts";

function close(actual: number | null, expected: number, digits = 6): void {
  assert.ok(actual !== null, "expected a number, got null");
  assert.ok(
    Math.abs(actual - expected) < 10 ** -digits,
    `expected ${expected}, got ${actual}`,
  );
}

Deno.test("mcnemarExact: 0 vs 5 discordant questions gives 2 / 2^5 = 0.0625", () => {
  close(mcnemarExact(0, 5), 0.0625);
  close(mcnemarExact(5, 0), 0.0625);
});

Deno.test("mcnemarExact: 1 vs 4 gives 2 * (1 + 5) / 32 = 0.375", () => {
  close(mcnemarExact(1, 4), 0.375);
});

Deno.test("mcnemarExact: balanced or no discordant pairs give p = 1", () => {
  assert.equal(mcnemarExact(0, 0), 1);
  assert.equal(mcnemarExact(3, 3), 1);
});

Deno.test("mcnemarExact: 2 vs 10 gives 2 * (1 + 12 + 66) / 4096", () => {
  close(mcnemarExact(2, 10), (2 * 79) / 4096);
});

Deno.test("mcnemarExact: large counts do not overflow", () => {
  const p = mcnemarExact(400, 600);
  assert.ok(p > 0 && p < 1e-9, String(p));
});

Deno.test("mcnemarExact refuses negative or fractional counts", () => {
  assert.throws(() => mcnemarExact(-1, 2), /non-negative integers, got -1/);
  assert.throws(() => mcnemarExact(1.5, 2), /non-negative integers, got 1.5/);
});

Deno.test("signFlipPValue: three equal gains have p = 2/8", () => {
  close(signFlipPValue([1, 1, 1]), 0.25);
});

Deno.test("signFlipPValue: differences 1 and 2 have p = 2/4 (sums ±3 of ±3, ±1)", () => {
  close(signFlipPValue([1, 2]), 0.5);
});

Deno.test("signFlipPValue: zero differences are ignored and all-zero gives p = 1", () => {
  close(signFlipPValue([0, 1, 0, 1, 0, 1]), 0.25);
  assert.equal(signFlipPValue([0, 0, 0]), 1);
});

Deno.test("signFlipPValue: floating-point noise does not change the verdict", () => {
  close(signFlipPValue([0.1 + 0.2, 0.3, 0.3 - 0.6]), signFlipPValue([0.3, 0.3, -0.3]));
});

Deno.test("signFlipPValue: past the exact limit the estimate is close to the exact value", () => {
  // 20 gains of 1: exact p = 2 / 2^20; the estimate is (hits + 1) / (resamples + 1).
  const diffs = Array.from({ length: 20 }, () => 1);
  const p = signFlipPValue(diffs);
  assert.ok(p > 0 && p < 0.001, String(p));
  // Balanced differences: the observed sum is 0, so every assignment is at least as extreme.
  const balanced = Array.from({ length: 30 }, (_, i) => (i % 2 ? 1 : -1));
  close(signFlipPValue(balanced), 1);
});

Deno.test("bootstrapMean: constant values give a zero-width interval at the mean", () => {
  assert.deepEqual(bootstrapMean([0.5, 0.5, 0.5]), { mean: 0.5, low: 0.5, high: 0.5 });
  assert.equal(bootstrapMean([]), null);
});

Deno.test("bootstrapMean: is deterministic and its interval holds the mean", () => {
  const values = [0, 1, 1, 0, 1, 1, 1, 0, 1, 1];
  const a = bootstrapMean(values)!;
  const b = bootstrapMean(values)!;
  assert.deepEqual(a, b);
  close(a.mean, 0.7);
  assert.ok(a.low < 0.7 && a.high > 0.7, JSON.stringify(a));
  // Resampled means are k/10 with k ~ Binomial(10, 0.7): P(k <= 3) = 0.011 and P(k <= 4) = 0.047
  // put the 2.5th percentile at 0.4; P(k <= 9) = 0.972 puts the 97.5th at the edge of 0.9 and 1.
  assert.ok(Math.abs(a.low - 0.4) < 1e-9 && a.high >= 0.9 && a.high <= 1, JSON.stringify(a));
});

Deno.test("pairedComparison: a system that wins every question by 0.5", () => {
  const a = [1, 1, 1, 1, 1, 1];
  const b = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
  const c = pairedComparison(a, b);
  assert.equal(c.n, 6);
  assert.deepEqual(c.diff, { mean: 0.5, low: 0.5, high: 0.5 });
  close(c.p_value, 2 / 64);
  assert.equal(c.differing, 6);
  assert.equal(verdictOf(c), "higher");
});

Deno.test("pairedComparison refuses lists of different length or none", () => {
  assert.throws(() => pairedComparison([1], [1, 2]), /differ in length \(1 and 2\)/);
  assert.throws(() => pairedComparison([], []), /at least one question/);
});

Deno.test("flipRate: changes between consecutive repeats over repeats - 1", () => {
  assert.equal(flipRate([true, false, true]), 1);
  assert.equal(flipRate([true, true, false]), 0.5);
  assert.equal(flipRate([false, false, false, false]), 0);
  assert.equal(flipRate([true]), null);
});

Deno.test("createRng: the same seed gives the same sequence in [0, 1)", () => {
  const a = createRng(7);
  const b = createRng(7);
  for (let i = 0; i < 1000; i++) {
    const x = a();
    assert.equal(x, b());
    assert.ok(x >= 0 && x < 1);
  }
});

Deno.test("normalCdf matches published values of the standard normal", () => {
  close(normalCdf(0), 0.5);
  close(normalCdf(1.959964), 0.975, 6);
  close(normalCdf(-1), 0.158655, 6);
  close(normalCdf(3), 0.998650, 6);
});

Deno.test("large samples use the normal interval; binary differences keep the exact sign test", () => {
  // 1000 values, half 0 and half 1: mean 0.5, s = sqrt(250 / 999), half-width 1.96 s / sqrt(1000).
  const values = Array.from({ length: 1000 }, (_, i) => i % 2);
  const half = 1.959964 * Math.sqrt(250 / 999) / Math.sqrt(1000);
  const i = bootstrapMean(values)!;
  close(i.low, 0.5 - half);
  close(i.high, 0.5 + half);
  // 540 gains and 460 losses of 1: the exact sign test (tests/lib/score/sign_flip_test.ts).
  const diffs = Array.from({ length: 1000 }, (_, k) => (k < 540 ? 1 : -1));
  close(signFlipPValue(diffs), mcnemarExact(460, 540), 9);
});

/** The resampling bootstrap as bootstrapMean does it, with no shortcut. */
function resampledInterval(values: readonly number[]): { low: number; high: number } {
  const n = values.length;
  const rng = createRng(STATS_SEED);
  const means = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += values[Math.floor(rng() * n)];
    means[r] = total / n;
  }
  means.sort();
  const at = (q: number) => {
    const position = q * (n === 0 ? 0 : means.length - 1);
    const lower = Math.floor(position);
    const upper = Math.ceil(position);
    return means[lower] + (means[upper] - means[lower]) * (position - lower);
  };
  return { low: at(0.025), high: at(0.975) };
}

Deno.test("bootstrapMean: constant values skip the draws and give exactly the resampled interval", () => {
  for (const [value, n] of [[0, 50], [0.1, 50], [1 / 3, 37], [-0.7, 199], [1, 1], [2 / 3, 150]]) {
    const values = Array.from({ length: n }, () => value);
    const got = bootstrapMean(values)!;
    const expected = resampledInterval(values);
    assert.equal(got.low, expected.low, `${value} × ${n}`);
    assert.equal(got.high, expected.high, `${value} × ${n}`);
    assert.equal(got.mean, values.reduce((a, b) => a + b, 0) / n);
  }
});
