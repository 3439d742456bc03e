/**
 * The calculator's functions: round, min, max, sum and abs.
 *
 * - `round(x, digits = 0)`: ties to even on the exact value (round(2.5) = 2,
 *   round(0.125, 2) = 0.12; a double is rounded by its exact binary value, as
 *   Python does); negative digits round to tens, hundreds, ...
 *   (round(1250, -2) = 1200). The result is always exact.
 * - `min`, `max`, `sum`: any number of arguments, each a number or a list
 *   `[a, b, ...]` whose items count as arguments: sum(1, 2, 3) = sum([1, 2, 3])
 *   = sum([1, 2], 3) = 6. min and max need at least one number; sum([]) = 0.
 * - `abs(x)`.
 *
 * @module
 */

import { arithmetic } from "./arithmetic.ts";
import type { FunctionName } from "./ast.ts";
import { at, CalcError } from "./calc_error.ts";
import { MAX_ROUND_DIGITS } from "./limits.ts";
import { absolute, roundHalfEven, ZERO } from "./rational.ts";
import { compareValues, exact, toRational, type Value } from "./value.ts";

/**
 * Applies `name` to its arguments: `args` are the evaluated arguments with
 * list items spread in place (the parser already checked the counts).
 * @throws {CalcError} for a bad `digits` in round and for the digit limit.
 */
export function callFunction(name: FunctionName, args: Value[], pos: number): Value {
  switch (name) {
    case "round":
      return roundValue(args[0], args[1], pos);
    case "abs":
      return args[0].kind === "exact"
        ? { kind: "exact", q: absolute(args[0].q) }
        : { kind: "float", x: Math.abs(args[0].x) };
    case "min":
    case "max": {
      const sign = name === "min" ? -1 : 1;
      // Like Python, the first of equal extremes wins.
      return args.reduce((best, v) => compareValues(v, best) * sign > 0 ? v : best);
    }
    case "sum":
      return args.reduce((total, v) => arithmetic("+", total, v, pos), {
        kind: "exact",
        q: ZERO,
      } as Value);
  }
}

function roundValue(x: Value, digits: Value | undefined, pos: number): Value {
  let places = 0;
  if (digits !== undefined) {
    if (digits.kind !== "exact" || digits.q.den !== 1n) {
      throw new CalcError(
        "syntax",
        `round()${at(pos)} needs a whole number of digits, e.g. round(x, 2); got ` +
          `${digits.kind === "exact" ? "a fraction" : "an approximate value"}.`,
        pos,
      );
    }
    const n = digits.q.num;
    if (n > BigInt(MAX_ROUND_DIGITS) || n < -BigInt(MAX_ROUND_DIGITS)) {
      throw new CalcError(
        "limit",
        `round()${at(pos)}: ${n} digits is out of range; use -${MAX_ROUND_DIGITS} to ` +
          `${MAX_ROUND_DIGITS}.`,
        pos,
      );
    }
    places = Number(n);
  }
  return exact(roundHalfEven(toRational(x), places), pos, "round()");
}
