/**
 * `x ** y` (also written `x ^ y`). An integer exponent on an exact base is
 * exact (a negative one gives the reciprocal); any other exponent falls back
 * to floating point and marks the result approximate.
 *
 * The size of an exact power is estimated from the bit lengths before it is
 * computed, so `9 ** 9 ** 9` or `(10 ** 1000) ** 1000` fail in microseconds
 * instead of allocating gigabytes.
 *
 * @module
 */

import { at, CalcError } from "./calc_error.ts";
import { bitLength, log10Abs } from "./bigint_math.ts";
import { BOUND_LOG2, MAX_DIGITS, MAX_EXPONENT } from "./limits.ts";
import { absolute, compare, fractionText, power as rationalPower, ratio } from "./rational.ts";
import { exact, float, isZeroValue, toFloat, toRational, type Value } from "./value.ts";

/** Why a result is approximate, as the output explains it. */
export const NON_INTEGER_POWER = "a non-integer power";

const EXPONENT_BOUND = ratio(BigInt(MAX_EXPONENT));

/**
 * base ** exponent; `pos` locates the operator. Adds {@link NON_INTEGER_POWER}
 * to `reasons` when it has to use floating point for that reason.
 * @throws {CalcError} `limit` for a too large exponent or result, `math` for
 * 0 to a negative power, a negative base to a fractional power, or overflow.
 */
export function power(base: Value, exponent: Value, pos: number, reasons: Set<string>): Value {
  const what = "'**'";
  const magnitude = absolute(toRational(exponent));
  if (compare(magnitude, EXPONENT_BOUND) > 0) {
    throw new CalcError(
      "limit",
      `The exponent ${describe(exponent)}${at(pos)} is too large: exponents are limited to ` +
        `${MAX_EXPONENT} in magnitude (results to ${MAX_DIGITS} digits).`,
      pos,
    );
  }
  if (exponent.kind === "exact" && exponent.q.den === 1n) {
    const k = exponent.q.num;
    if (isZeroValue(base) && k < 0n) {
      throw new CalcError(
        "math",
        `Division by zero${at(pos)}: 0 cannot be raised to a negative power.`,
        pos,
      );
    }
    if (base.kind === "float") return float(base.x ** Number(k), pos, what);
    checkPowerSize(base.q.num, k, pos);
    checkPowerSize(base.q.den, k, pos);
    return exact(rationalPower(base.q, k), pos, what);
  }
  const x = toFloat(base, pos, what);
  const y = toFloat(exponent, pos, what);
  if (!Number.isInteger(y)) reasons.add(NON_INTEGER_POWER);
  if (x === 0 && y < 0) {
    throw new CalcError(
      "math",
      `Division by zero${at(pos)}: 0 cannot be raised to a negative power.`,
      pos,
    );
  }
  if (x < 0 && !Number.isInteger(y)) {
    throw new CalcError(
      "math",
      `The result of '**'${at(pos)} is not a real number: a negative number raised to a ` +
        "non-integer power has no real value.",
      pos,
    );
  }
  return float(x ** y, pos, what);
}

/** Refuses |n| ** |k| when it would certainly pass the digit limit. */
function checkPowerSize(n: bigint, k: bigint, pos: number): void {
  const bits = bitLength(n);
  const times = Number(k < 0n ? -k : k);
  // n >= 2^(bits-1), so n^k >= 2^((bits-1)k): past the bound means too many digits.
  // Below it the power has at most about MAX_EXPONENT bits more than the bound, cheap
  // to compute, and exact() checks it precisely.
  if ((bits - 1) * times > BOUND_LOG2) {
    const digits = Math.floor(times * log10Abs(n)) + 1;
    throw new CalcError(
      "limit",
      `The power${at(pos)} would have about ${digits} digits; exact values are limited to ` +
        `${MAX_DIGITS} digits. Use a smaller base or exponent.`,
      pos,
    );
  }
}

/** An exponent as text for messages: the number itself when short. */
function describe(v: Value): string {
  if (v.kind === "float") return String(v.x);
  const text = fractionText(v.q);
  return text.length <= 40 ? text : `(a number with ${text.length} characters)`;
}
