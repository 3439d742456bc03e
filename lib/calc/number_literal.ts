/**
 * Reads a decimal number literal exactly, as a rational: `12`, `1_000`,
 * `0.1`, `.5`, `5.`, `1.5e3`, `2E-4`. Underscores are accepted as in Python:
 * one at a time, between two digits. Hexadecimal, octal, binary and complex
 * literals are refused.
 *
 * @module
 */

import { at, CalcError } from "./calc_error.ts";
import { DIGITS_BOUND, MAX_DIGITS } from "./limits.ts";
import { ratio, type Rational, ZERO } from "./rational.ts";

/** A scanned literal: its value and where it ends (exclusive). */
export interface NumberLiteral {
  value: Rational;
  end: number;
}

/** True when a number literal starts at `pos` (a digit, or `.` followed by a digit). */
export function startsNumber(text: string, pos: number): boolean {
  return isDigit(text[pos]) || (text[pos] === "." && isDigit(text[pos + 1]));
}

/**
 * Scans the literal starting at `pos`.
 * @throws {CalcError} for malformed literals and literals past the digit limit.
 */
export function scanNumber(text: string, pos: number): NumberLiteral {
  let i = pos;
  const whole = scanDigits(text, i);
  i = whole.end;
  let fraction = "";
  // `1.` and `1.e3` are numbers, but in `1.real` the dot is attribute access.
  if (
    text[i] === "." && (!isNameChar(text[i + 1]) || isDigit(text[i + 1]) || exponentAt(text, i + 1))
  ) {
    const part = scanDigits(text, i + 1);
    fraction = part.digits;
    i = part.end;
  }
  let exponent = 0;
  if (exponentAt(text, i)) {
    let j = i + 1;
    const negative = text[j] === "-";
    if (text[j] === "+" || text[j] === "-") j++;
    const part = scanDigits(text, j);
    // Clamped: anything past a billion is refused below just the same.
    const magnitude = Math.min(Number(part.digits), 1e9);
    exponent = negative ? -magnitude : magnitude;
    i = part.end;
  }
  refuseTrailingName(text, pos, i);

  const literal = text.slice(pos, i);
  const digits = whole.digits + fraction;
  if (digits.length > MAX_DIGITS) {
    throw new CalcError(
      "limit",
      `The number${at(pos)} has ${digits.length} digits; number literals are limited to ` +
        `${MAX_DIGITS} digits.`,
      pos,
    );
  }
  const mantissa = BigInt(digits === "" ? "0" : digits);
  if (mantissa === 0n) return { value: ZERO, end: i };
  const scale = exponent - fraction.length;
  const significant = mantissa.toString().length;
  if (scale >= 0) {
    if (significant + scale > MAX_DIGITS) {
      throw tooBig(literal, pos);
    }
    return { value: ratio(mantissa * 10n ** BigInt(scale)), end: i };
  }
  // gcd(mantissa, 10^-scale) <= mantissa < 10^MAX_DIGITS, so beyond this the
  // reduced denominator is certainly too long.
  if (-scale > 2 * MAX_DIGITS) throw tooSmall(literal, pos);
  const value = ratio(mantissa, 10n ** BigInt(-scale));
  if (value.den >= DIGITS_BOUND) throw tooSmall(literal, pos);
  return { value, end: i };
}

function tooBig(literal: string, pos: number): CalcError {
  return new CalcError(
    "limit",
    `The number ${clip(literal)}${at(pos)} is too large: it would have more than ` +
      `${MAX_DIGITS} digits, the limit for exact values.`,
    pos,
  );
}

function tooSmall(literal: string, pos: number): CalcError {
  return new CalcError(
    "limit",
    `The number ${clip(literal)}${at(pos)} is too small: as a fraction its denominator ` +
      `would have more than ${MAX_DIGITS} digits, the limit for exact values.`,
    pos,
  );
}

/** Digits with single underscores between them, starting at `pos` (possibly none). */
function scanDigits(text: string, pos: number): { digits: string; end: number } {
  let i = pos;
  let digits = "";
  while (i < text.length) {
    if (isDigit(text[i])) {
      digits += text[i];
      i++;
    } else if (text[i] === "_" && isDigit(text[i - 1]) && isDigit(text[i + 1]) && i > pos) {
      i++;
    } else {
      break;
    }
  }
  return { digits, end: i };
}

/** An `e`/`E` at `pos` that starts an exponent: followed by a digit, or a sign and a digit. */
function exponentAt(text: string, pos: number): boolean {
  if (text[pos] !== "e" && text[pos] !== "E") return false;
  const next = text[pos + 1];
  return isDigit(next) || ((next === "+" || next === "-") && isDigit(text[pos + 2]));
}

/** A literal glued to letters (`0x1F`, `2pi`, `3j`, `1__0`, `2e`) is refused with a fix. */
function refuseTrailingName(text: string, start: number, end: number): void {
  const next = text[end];
  if (!isNameChar(next)) return;
  let stop = end;
  while (stop < text.length && isNameChar(text[stop])) stop++;
  const literal = text.slice(start, end);
  const glued = text.slice(start, stop);
  let why: string;
  if (next === "_") {
    why = "an underscore in a number may only stand between two digits, as in 1_000_000";
  } else if (literal === "0" && /[xXoObB]/.test(next)) {
    why = "hexadecimal, octal and binary literals are not supported: write the number in decimal";
  } else if (next === "j" || next === "J") {
    why = "complex numbers are not supported";
  } else if ((next === "e" || next === "E") && stop === end + 1 && !/[eE]/.test(literal)) {
    why = `write scientific notation with digits after the e (${literal}e3, ${literal}e-3), ` +
      `or multiply by the constant e explicitly (${literal} * e)`;
  } else {
    const name = text.slice(end, stop);
    why = `a number cannot be followed directly by a name; write the multiplication ` +
      `explicitly: ${literal} * ${name}`;
  }
  throw new CalcError("syntax", `Malformed number '${clip(glued)}'${at(start)}: ${why}.`, start);
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 20)}…${text.slice(-10)}` : text;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** Letters, digits and underscore (ASCII; other characters are refused before this). */
export function isNameChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}
