/**
 * The values the evaluator computes with: an exact rational, or a double
 * once floating point is involved (pi, e, non-integer powers). Also the
 * checks that keep both kinds inside the calculator's limits.
 *
 * @module
 */

import { at, CalcError } from "./calc_error.ts";
import { log10Abs } from "./bigint_math.ts";
import { floatFromRational, rationalFromFloat } from "./float_math.ts";
import { DIGITS_BOUND, MAX_DIGITS } from "./limits.ts";
import { compare, type Rational } from "./rational.ts";

/** An exact rational, or an approximate (finite) double. */
export type Value =
  | { kind: "exact"; q: Rational }
  | { kind: "float"; x: number };

/** Wraps a rational after checking its size. @throws {CalcError} past {@link MAX_DIGITS}. */
export function exact(q: Rational, pos: number, what: string): Value {
  const num = q.num < 0n ? -q.num : q.num;
  if (num >= DIGITS_BOUND || q.den >= DIGITS_BOUND) {
    const part = num >= DIGITS_BOUND ? num : q.den;
    const digits = Math.floor(log10Abs(part)) + 1;
    const which = q.den === 1n ? "" : num >= DIGITS_BOUND ? " (numerator)" : " (denominator)";
    throw new CalcError(
      "limit",
      `The result of ${what}${at(pos)} has ${digits} digits${which}; exact values are ` +
        `limited to ${MAX_DIGITS} digits. Use smaller numbers or split the calculation.`,
      pos,
    );
  }
  return { kind: "exact", q };
}

/** Wraps a double after checking it is a finite real number. @throws {CalcError} otherwise. */
export function float(x: number, pos: number, what: string): Value {
  if (Number.isNaN(x)) {
    throw new CalcError("math", `The result of ${what}${at(pos)} is not a real number.`, pos);
  }
  if (!Number.isFinite(x)) {
    throw new CalcError(
      "math",
      `The result of ${what}${at(pos)} overflows floating point (beyond about 1.8e308); ` +
        "only exact arithmetic (no pi, e or non-integer powers) can go further.",
      pos,
    );
  }
  return { kind: "float", x };
}

/** The value as a double. @throws {CalcError} when an exact value is beyond the double range. */
export function toFloat(v: Value, pos: number, what: string): number {
  if (v.kind === "float") return v.x;
  const x = floatFromRational(v.q);
  if (!Number.isFinite(x)) {
    throw new CalcError(
      "math",
      `An operand of ${what}${at(pos)} is too large for floating point (beyond about ` +
        "1.8e308), which pi, e and non-integer powers need.",
      pos,
    );
  }
  return x;
}

/** The exact value of v (a double's exact binary value). */
export function toRational(v: Value): Rational {
  return v.kind === "exact" ? v.q : rationalFromFloat(v.x);
}

/** True for exact 0 and for ±0.0. */
export function isZeroValue(v: Value): boolean {
  return v.kind === "exact" ? v.q.num === 0n : v.x === 0;
}

/** Compares two values exactly (a double by its exact binary value). */
export function compareValues(a: Value, b: Value): number {
  if (a.kind === "float" && b.kind === "float") return a.x < b.x ? -1 : a.x > b.x ? 1 : 0;
  return compare(toRational(a), toRational(b));
}
