/**
 * Exact rational numbers over BigInt: the value type of the calculator's
 * exact arithmetic. A {@link Rational} is always normalised (denominator > 0,
 * numerator and denominator coprime), so equal values have equal fields.
 *
 * These functions do no size checks; the evaluator checks sizes before any
 * operation whose result could grow without bound (powers) and after the
 * others.
 *
 * @module
 */

import { gcd } from "./bigint_math.ts";

/** num / den with den > 0 and gcd(|num|, den) = 1. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

/** The rational 0. */
export const ZERO: Rational = { num: 0n, den: 1n };

/**
 * num / den, normalised.
 *
 * @throws {RangeError} when den is 0 (callers check for division by zero first).
 */
export function ratio(num: bigint, den: bigint = 1n): Rational {
  if (den === 0n) throw new RangeError("rational with a zero denominator");
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  if (den === 1n) return { num, den };
  const g = gcd(num, den);
  return g === 1n ? { num, den } : { num: num / g, den: den / g };
}

/** -q. */
export function negate(q: Rational): Rational {
  return { num: -q.num, den: q.den };
}

/** |q|. */
export function absolute(q: Rational): Rational {
  return q.num < 0n ? negate(q) : q;
}

/** a + b. */
export function add(a: Rational, b: Rational): Rational {
  if (a.den === 1n && b.den === 1n) return { num: a.num + b.num, den: 1n };
  // Henrici's method: the gcds are of the denominators, not of the full products.
  const g = gcd(a.den, b.den);
  // With coprime denominators the sum is already in lowest terms (and never 0).
  if (g === 1n) return { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
  const t = a.num * (b.den / g) + b.num * (a.den / g);
  if (t === 0n) return ZERO;
  const g2 = gcd(t, g);
  return { num: t / g2, den: (a.den / g) * (b.den / g2) };
}

/** a - b. */
export function subtract(a: Rational, b: Rational): Rational {
  return add(a, negate(b));
}

/** a * b. */
export function multiply(a: Rational, b: Rational): Rational {
  if (a.den === 1n && b.den === 1n) return { num: a.num * b.num, den: 1n };
  // Cross-reducing first keeps the result normalised without a gcd of the products.
  if (a.num === 0n || b.num === 0n) return ZERO;
  const g1 = gcd(a.num, b.den);
  const g2 = gcd(b.num, a.den);
  return { num: (a.num / g1) * (b.num / g2), den: (a.den / g2) * (b.den / g1) };
}

/** 1 / q. @throws {RangeError} when q is 0. */
export function reciprocal(q: Rational): Rational {
  if (q.num === 0n) throw new RangeError("reciprocal of zero");
  return q.num < 0n ? { num: -q.den, den: -q.num } : { num: q.den, den: q.num };
}

/** a / b. @throws {RangeError} when b is 0. */
export function divide(a: Rational, b: Rational): Rational {
  return multiply(a, reciprocal(b));
}

/** The largest integer <= q. */
export function floorOf(q: Rational): bigint {
  const quotient = q.num / q.den; // truncates toward zero
  return q.num < 0n && quotient * q.den !== q.num ? quotient - 1n : quotient;
}

/** floor(a / b), as Python's `//`. @throws {RangeError} when b is 0. */
export function floorDivide(a: Rational, b: Rational): Rational {
  return ratio(floorOf(divide(a, b)));
}

/**
 * a - b * floor(a / b), as Python's `%`: the result has the sign of b
 * (-7 % 2 = 1, 7 % -2 = -1). @throws {RangeError} when b is 0.
 */
export function modulo(a: Rational, b: Rational): Rational {
  return subtract(a, multiply(b, floorDivide(a, b)));
}

/** Compares a and b: negative, 0 or positive. */
export function compare(a: Rational, b: Rational): number {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * q ** k for an integer k (negative k gives the reciprocal power).
 * @throws {RangeError} when q is 0 and k is negative.
 */
export function power(q: Rational, k: bigint): Rational {
  if (k < 0n) return power(reciprocal(q), -k);
  // Powers of coprime numbers stay coprime: no gcd needed.
  return { num: q.num ** k, den: q.den ** k };
}

/**
 * q rounded to `digits` decimal places (negative: to tens, hundreds, ...),
 * ties to the even neighbour, decided on the exact value:
 * round(2.5) = 2, round(0.125, 2) = 0.12, round(1250, -2) = 1200.
 */
export function roundHalfEven(q: Rational, digits = 0): Rational {
  const scale = ratio(10n ** BigInt(Math.abs(digits)));
  const scaled = digits >= 0 ? multiply(q, scale) : divide(q, scale);
  const rounded = ratio(roundToInteger(scaled));
  return digits >= 0 ? divide(rounded, scale) : multiply(rounded, scale);
}

/** The integer nearest q, ties to even. */
export function roundToInteger(q: Rational): bigint {
  const low = floorOf(q);
  const twiceRest = 2n * (q.num - low * q.den); // 2 * (q - low) * den, in [0, 2 den)
  if (twiceRest < q.den) return low;
  if (twiceRest > q.den) return low + 1n;
  return low % 2n === 0n ? low : low + 1n;
}

/** "num/den", or just "num" for an integer. */
export function fractionText(q: Rational): string {
  return q.den === 1n ? q.num.toString() : `${q.num}/${q.den}`;
}
