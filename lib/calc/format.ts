/**
 * Turns a computed value into the text the model reads.
 *
 * Exact values:
 * - an integer prints in full (up to 3000 digits);
 * - a non-integer whose decimal expansion ends within
 *   {@link MAX_EXACT_DECIMALS} places prints exactly (0.1 + 0.2 gives 0.3);
 * - any other value is rounded, ties to even, from the exact value, to
 *   {@link SIGNIFICANT_DIGITS} significant digits or to one decimal place,
 *   whichever keeps more digits (500/19 gives 26.3157894736842, 10**15/7 gives
 *   142857142857142.9): the integer part is never rounded away, and a rounded
 *   non-integer always shows a decimal point, so it never looks like an
 *   integer. Trailing zeros after the first decimal are dropped. Below 1e-6
 *   it switches to scientific notation (3.33333333333333e-8).
 *
 * Floating-point values (approximate) are rounded to 15 significant digits
 * from their exact binary value, trailing zeros dropped, in plain notation
 * for 1e-6 <= |x| < 1e15 and scientific notation otherwise (1e+300).
 *
 * @module
 */

import { log10Abs } from "./bigint_math.ts";
import type { Rational } from "./rational.ts";

/** Significant digits of a rounded value (what a double reliably carries). */
export const SIGNIFICANT_DIGITS = 15;

/** Most decimal places printed exactly for a terminating non-integer. */
export const MAX_EXACT_DECIMALS = 20;

/** Smallest decimal exponent printed in plain notation (1e-6). */
const MIN_PLAIN_EXPONENT = -6;

/** A value as text, and whether the text is exactly the value. */
export interface FormattedNumber {
  text: string;
  /** False when the text was rounded. */
  exact: boolean;
}

/** Formats an exact rational by the rules above. */
export function formatRational(q: Rational): FormattedNumber {
  if (q.den === 1n) return { text: q.num.toString(), exact: true };
  const terminating = terminatingPlaces(q.den);
  if (terminating !== undefined) {
    const scaled = q.num * (10n ** BigInt(terminating) / q.den);
    return { text: placeDecimals(scaled, terminating), exact: true };
  }
  const k = decimalExponent(q);
  if (k < MIN_PLAIN_EXPONENT) return formatSignificant(q);
  const places = Math.max(SIGNIFICANT_DIGITS - 1 - k, 1);
  const rounded = roundToPlaces(q, places);
  const text = placeDecimals(rounded.scaled, places).replace(/(\.\d*?[0-9])0+$/, "$1");
  return { text, exact: rounded.exact };
}

/**
 * Formats q rounded to `digits` significant digits (ties to even), trailing
 * zeros dropped; plain notation for 1e-6 <= |q| < 1e15, scientific otherwise.
 */
export function formatSignificant(q: Rational, digits = SIGNIFICANT_DIGITS): FormattedNumber {
  if (q.num === 0n) return { text: "0", exact: true };
  let k = decimalExponent(q);
  const rounded = roundToPlaces(q, digits - 1 - k);
  let text = (rounded.scaled < 0n ? -rounded.scaled : rounded.scaled).toString();
  if (text.length > digits) {
    // Rounded up to the next power of ten (9.99...95 -> 10).
    text = text.slice(0, digits);
    k++;
  }
  text = text.replace(/0+$/, "");
  return { text: (q.num < 0n ? "-" : "") + layout(text, k), exact: rounded.exact };
}

/** Digits `d1 d2 ...` (no trailing zeros) of a number whose leading digit is at 10^k. */
function layout(digits: string, k: number): string {
  if (k >= MIN_PLAIN_EXPONENT && k < SIGNIFICANT_DIGITS) {
    if (k < 0) return `0.${"0".repeat(-k - 1)}${digits}`;
    const whole = digits.slice(0, k + 1).padEnd(k + 1, "0");
    const fraction = digits.slice(k + 1);
    return fraction ? `${whole}.${fraction}` : whole;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${mantissa}e${k < 0 ? "-" : "+"}${Math.abs(k)}`;
}

/** floor(log10(|q|)) for q != 0: a float estimate, corrected exactly. */
function decimalExponent(q: Rational): number {
  const num = q.num < 0n ? -q.num : q.num;
  let k = Math.floor(log10Abs(num) - log10Abs(q.den));
  while (!atLeastPowerOfTen(num, q.den, k)) k--;
  while (atLeastPowerOfTen(num, q.den, k + 1)) k++;
  return k;
}

/** num / den >= 10^k. */
function atLeastPowerOfTen(num: bigint, den: bigint, k: number): boolean {
  return k >= 0 ? num >= den * 10n ** BigInt(k) : num * 10n ** BigInt(-k) >= den;
}

/** q * 10^places rounded to an integer, ties to even (places may be negative). */
function roundToPlaces(q: Rational, places: number): { scaled: bigint; exact: boolean } {
  const negative = q.num < 0n;
  const num = negative ? -q.num : q.num;
  const top = places >= 0 ? num * 10n ** BigInt(places) : num;
  const bottom = places >= 0 ? q.den : q.den * 10n ** BigInt(-places);
  let scaled = top / bottom;
  const twiceRest = 2n * (top - scaled * bottom);
  if (twiceRest > bottom || (twiceRest === bottom && scaled % 2n === 1n)) scaled += 1n;
  return { scaled: negative ? -scaled : scaled, exact: twiceRest === 0n };
}

/** The number of decimal places of 1/den when it terminates within MAX_EXACT_DECIMALS. */
function terminatingPlaces(den: bigint): number | undefined {
  let power = 1n;
  for (let places = 0; places <= MAX_EXACT_DECIMALS; places++) {
    if (power % den === 0n) return places;
    power *= 10n;
  }
  return undefined;
}

/** The integer n / 10^places as a decimal: placeDecimals(-125n, 2) = "-1.25". */
function placeDecimals(n: bigint, places: number): string {
  const negative = n < 0n;
  const digits = (negative ? -n : n).toString().padStart(places + 1, "0");
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places);
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}
