/**
 * The operators + - * / // % on calculator values, with Python's semantics:
 * exact when both operands are exact, floating point otherwise; `//` floors
 * and `%` takes the sign of the divisor (-7 // 2 = -4, -7 % 2 = 1,
 * 7 % -2 = -1), on rationals as on integers. Powers are in `power.ts`.
 *
 * @module
 */

import { at, CalcError } from "./calc_error.ts";
import { floatDivmod } from "./float_math.ts";
import { add, divide, floorDivide, modulo, multiply, subtract } from "./rational.ts";
import { exact, float, isZeroValue, toFloat, type Value } from "./value.ts";

/** The operators handled here. */
export type ArithmeticOperator = "+" | "-" | "*" | "/" | "//" | "%";

/**
 * `a op b`; `pos` locates the operator for messages.
 * @throws {CalcError} `math` for a zero divisor, `limit` past the digit limit.
 */
export function arithmetic(op: ArithmeticOperator, a: Value, b: Value, pos: number): Value {
  const what = `'${op}'`;
  if ((op === "/" || op === "//" || op === "%") && isZeroValue(b)) {
    const action = op === "%" ? "Modulo" : "Division";
    throw new CalcError(
      "math",
      `${action} by zero${at(pos)} ('${op}' with a right-hand side of 0).`,
      pos,
    );
  }
  if (a.kind === "exact" && b.kind === "exact") {
    switch (op) {
      case "+":
        return exact(add(a.q, b.q), pos, what);
      case "-":
        return exact(subtract(a.q, b.q), pos, what);
      case "*":
        return exact(multiply(a.q, b.q), pos, what);
      case "/":
        return exact(divide(a.q, b.q), pos, what);
      case "//":
        return exact(floorDivide(a.q, b.q), pos, what);
      case "%":
        return exact(modulo(a.q, b.q), pos, what);
    }
  }
  const x = toFloat(a, pos, what);
  const y = toFloat(b, pos, what);
  switch (op) {
    case "+":
      return float(x + y, pos, what);
    case "-":
      return float(x - y, pos, what);
    case "*":
      return float(x * y, pos, what);
    case "/":
      return float(x / y, pos, what);
    case "//":
      return float(floatDivmod(x, y).quotient, pos, what);
    case "%":
      return float(floatDivmod(x, y).remainder, pos, what);
  }
}
