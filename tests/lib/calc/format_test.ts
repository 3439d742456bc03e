import assert from "node:assert/strict";
import { formatRational, formatSignificant } from "../../../lib/calc/format.ts";
import { rationalFromFloat } from "../../../lib/calc/float_math.ts";
import { ratio } from "../../../lib/calc/rational.ts";

Deno.test("formatRational prints integers and short terminating decimals exactly", () => {
  const table: Array<[bigint, bigint, string]> = [
    [2n ** 100n, 1n, "1267650600228229401496703205376"],
    [-42n, 1n, "-42"],
    [3n, 10n, "0.3"],
    [-1n, 8n, "-0.125"],
    [1n, 10n ** 20n, "0.00000000000000000001"],
    [2n * 10n ** 20n + 1n, 2n, "100000000000000000000.5"],
  ];
  for (const [num, den, text] of table) {
    assert.deepEqual(formatRational(ratio(num, den)), { text, exact: true }, `${num}/${den}`);
  }
});

Deno.test("formatRational rounds other values half to even and keeps a decimal point", () => {
  const table: Array<[bigint, bigint, string]> = [
    [500n, 19n, "26.3157894736842"],
    [1n, 3n, "0.333333333333333"],
    [2n, 3n, "0.666666666666667"],
    [10n ** 15n, 7n, "142857142857142.9"],
    [10n ** 13n * 3000n + 1n, 3000n, "10000000000000.0"],
    [1n, 3n * 10n ** 6n, "3.33333333333333e-7"],
    [1n, 2n ** 30n, "9.31322574615479e-10"],
    [1n, 10n ** 21n, "1e-21"],
    [-(10n ** 20n), 3n, "-33333333333333333333.3"],
    // 0.1234567890123445 + 1/(3 * 10^19): the 16th digit is a 5 followed by more, so up.
    [1234567890123445n * 3n * 10n ** 3n + 1n, 3n * 10n ** 19n, "0.123456789012345"],
  ];
  for (const [num, den, text] of table) {
    const formatted = formatRational(ratio(num, den));
    assert.equal(formatted.text, text, `${num}/${den}`);
  }
  assert.equal(formatRational(ratio(1n, 10n ** 21n)).exact, true);
  assert.equal(formatRational(ratio(1n, 3n)).exact, false);
});

Deno.test("formatSignificant ties go to the even digit, decided on the exact value", () => {
  // 1.000000000000005 exactly (as a fraction) has a tie at the 15th digit: stays ...000.
  assert.equal(formatSignificant(ratio(1000000000000005n, 10n ** 15n)).text, "1");
  assert.equal(formatSignificant(ratio(1000000000000015n, 10n ** 15n)).text, "1.00000000000002");
  assert.equal(formatSignificant(ratio(999999999999999500n, 1n)).text, "1e+18");
});

Deno.test("formatSignificant prints doubles with 15 significant digits", () => {
  const table: Array<[number, string]> = [
    [Math.PI, "3.14159265358979"],
    [Math.SQRT2, "1.4142135623731"],
    [0.1 + 0.2, "0.3"],
    [1e300, "1e+300"],
    [-1.5e-7, "-1.5e-7"],
    [123456789012345.6, "123456789012346"],
    [1e15, "1e+15"],
    [0.000001, "0.000001"],
  ];
  for (const [x, text] of table) {
    assert.equal(formatSignificant(rationalFromFloat(x)).text, text, String(x));
  }
});
