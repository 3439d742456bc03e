import assert from "node:assert/strict";
import { floatDivmod, floatFromRational, rationalFromFloat } from "../../../lib/calc/float_math.ts";
import { fractionText, ratio } from "../../../lib/calc/rational.ts";

Deno.test("rationalFromFloat gives a double's exact binary value", () => {
  assert.equal(fractionText(rationalFromFloat(0.1)), "3602879701896397/36028797018963968");
  assert.equal(fractionText(rationalFromFloat(-2.5)), "-5/2");
  assert.equal(fractionText(rationalFromFloat(2 ** 80)), (2n ** 80n).toString());
  assert.equal(fractionText(rationalFromFloat(-0)), "0");
  assert.equal(fractionText(rationalFromFloat(5e-324)), `1/${2n ** 1074n}`);
  assert.throws(() => rationalFromFloat(Infinity), RangeError);
});

Deno.test("floatFromRational round-trips doubles and rounds big fractions once", () => {
  for (const x of [0.1, -2.5, Math.PI, 1e300, -1e-300, 5e-324, 2 ** 53 + 2, 123456.789]) {
    assert.equal(floatFromRational(rationalFromFloat(x)), x, String(x));
  }
  assert.equal(floatFromRational(ratio(1n, 3n)), 1 / 3);
  assert.equal(floatFromRational(ratio(10n ** 400n, 3n * 10n ** 399n)), 10 / 3);
  assert.equal(floatFromRational(ratio(10n ** 400n)), Infinity);
  assert.equal(floatFromRational(ratio(1n, 10n ** 400n)), 0);
});

Deno.test("floatDivmod matches Python's divmod on floats", () => {
  // Expected values printed by CPython 3: divmod(a, b).
  const table: Array<[number, number, number, number]> = [
    [-7.5, 2, -4, 0.5],
    [7.5, -2, -4, -0.5],
    [-1e-20, 1, -1, 1],
    [7, 0.1, 69, 0.09999999999999962],
    [-7, 0.1, -70, 3.885780586188048e-16],
    [5, -3, -2, -1],
  ];
  for (const [a, b, quotient, remainder] of table) {
    assert.deepEqual(floatDivmod(a, b), { quotient, remainder }, `divmod(${a}, ${b})`);
  }
});
