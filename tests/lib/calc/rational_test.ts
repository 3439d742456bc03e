import assert from "node:assert/strict";
import {
  add,
  compare,
  divide,
  floorDivide,
  fractionText,
  modulo,
  multiply,
  power,
  ratio,
  type Rational,
  roundHalfEven,
  subtract,
} from "../../../lib/calc/rational.ts";

function q(text: string): Rational {
  const [num, den = "1"] = text.split("/");
  return ratio(BigInt(num), BigInt(den));
}

Deno.test("ratio normalises sign and lowest terms", () => {
  assert.deepEqual(ratio(2n, -4n), { num: -1n, den: 2n });
  assert.deepEqual(ratio(0n, -7n), { num: 0n, den: 1n });
  assert.throws(() => ratio(1n, 0n), RangeError);
});

Deno.test("arithmetic results are always in lowest terms", () => {
  const table: Array<[string, (a: Rational, b: Rational) => Rational, string, string, string]> = [
    ["add", add, "1/6", "1/3", "1/2"],
    ["add to zero", add, "1/2", "-1/2", "0"],
    ["add coprime", add, "1/2", "1/3", "5/6"],
    ["subtract", subtract, "3/4", "1/4", "1/2"],
    ["multiply", multiply, "2/3", "9/4", "3/2"],
    ["multiply by zero", multiply, "0", "9/4", "0"],
    ["divide", divide, "1/2", "-1/4", "-2"],
  ];
  for (const [what, op, a, b, expected] of table) {
    assert.equal(fractionText(op(q(a), q(b))), expected, what);
  }
});

Deno.test("floorDivide and modulo follow Python on integers and fractions", () => {
  const table: Array<[string, string, string, string]> = [
    // a, b, a // b, a % b
    ["-7", "2", "-4", "1"],
    ["7", "-2", "-4", "-1"],
    ["-7", "-2", "3", "-1"],
    ["7", "2", "3", "1"],
    ["-2/3", "1/4", "-3", "1/12"],
    ["2/3", "-1/4", "-3", "-1/12"],
    ["-15/2", "2", "-4", "1/2"],
    ["6", "3", "2", "0"],
  ];
  for (const [a, b, quotient, remainder] of table) {
    assert.equal(fractionText(floorDivide(q(a), q(b))), quotient, `${a} // ${b}`);
    assert.equal(fractionText(modulo(q(a), q(b))), remainder, `${a} % ${b}`);
  }
});

Deno.test("roundHalfEven rounds ties to the even neighbour", () => {
  const table: Array<[string, number, string]> = [
    ["5/2", 0, "2"],
    ["7/2", 0, "4"],
    ["-5/2", 0, "-2"],
    ["-1/2", 0, "0"],
    ["1/8", 2, "3/25"], // 0.125 -> 0.12
    ["3/8", 2, "19/50"], // 0.375 -> 0.38
    ["1250", -2, "1200"],
    ["1350", -2, "1400"],
    ["1/3", 3, "333/1000"],
    ["-2/3", 1, "-7/10"],
  ];
  for (const [value, digits, expected] of table) {
    assert.equal(fractionText(roundHalfEven(q(value), digits)), expected, `${value}, ${digits}`);
  }
});

Deno.test("power takes integer exponents exactly, negative ones as reciprocals", () => {
  assert.equal(fractionText(power(q("2/3"), 3n)), "8/27");
  assert.equal(fractionText(power(q("-2/3"), -3n)), "-27/8");
  assert.equal(fractionText(power(q("5"), 0n)), "1");
  assert.throws(() => power(q("0"), -1n), RangeError);
});

Deno.test("compare orders rationals exactly", () => {
  assert.equal(compare(q("1/3"), q("333/1000")), 1);
  assert.equal(compare(q("-1/2"), q("-2/4")), 0);
  assert.equal(compare(q("-1"), q("1/1000000")), -1);
});
