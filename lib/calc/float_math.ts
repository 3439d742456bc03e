/**
 * The floating-point side of the calculator: exact conversion between
 * doubles and rationals, and Python's floor division and modulo on floats.
 * Floats only appear for pi, e and non-integer powers.
 *
 * @module
 */

import { bitLength } from "./bigint_math.ts";
import { ratio, type Rational, ZERO } from "./rational.ts";

/** The exact value of a finite double as a rational (every double is a dyadic rational). */
export function rationalFromFloat(x: number): Rational {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  if (x === 0) return ZERO;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const negative = high >>> 31 === 1;
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  let exponent: number;
  if (biased === 0) {
    exponent = -1074; // subnormal
  } else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  if (negative) mantissa = -mantissa;
  return exponent >= 0
    ? ratio(mantissa << BigInt(exponent))
    : ratio(mantissa, 1n << BigInt(-exponent));
}

/**
 * The double nearest q (rounding once, except for subnormal results);
 * ±Infinity when |q| is beyond the double range.
 */
export function floatFromRational(q: Rational): number {
  const { num, den } = q;
  if (num === 0n) return 0;
  const safe = 2n ** 53n;
  if (-safe < num && num < safe && den < safe) return Number(num) / Number(den);
  // Scale so the integer quotient has about 66 bits, then fold the remainder
  // into a sticky bit so Number() rounds like the exact quotient would.
  const shift = bitLength(den) - bitLength(num) + 66;
  const top = shift >= 0 ? num << BigInt(shift) : num;
  const bottom = shift >= 0 ? den : den << BigInt(-shift);
  let quotient = top / bottom;
  if (quotient * bottom !== top) quotient |= 1n;
  return scaleByPowerOfTwo(Number(quotient), -shift);
}

/** x * 2^e without intermediate overflow or underflow of 2^e itself. */
function scaleByPowerOfTwo(x: number, e: number): number {
  while (e > 1000) {
    x *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    x *= 2 ** -1000;
    e += 1000;
  }
  return x * 2 ** e;
}

/**
 * Python's float `divmod(a, b)`: floor quotient and a remainder with the sign
 * of b (so -7.5 % 2 = 0.5). b must not be 0.
 */
export function floatDivmod(a: number, b: number): { quotient: number; remainder: number } {
  let remainder = a % b; // C fmod: the sign of a
  let division = (a - remainder) / b;
  if (remainder !== 0) {
    if ((b < 0) !== (remainder < 0)) {
      remainder += b;
      division -= 1;
    }
  } else {
    remainder = b < 0 ? -0 : 0;
  }
  let quotient: number;
  if (division !== 0) {
    quotient = Math.floor(division);
    if (division - quotient > 0.5) quotient += 1;
  } else {
    quotient = a / b < 0 ? -0 : 0;
  }
  return { quotient, remainder };
}
