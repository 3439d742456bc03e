/**
 * Splits an expression into tokens. Number literals are converted to exact
 * rationals here. Any character outside printable ASCII is refused at once,
 * with its code point; ASCII punctuation the calculator does not support
 * (quotes, `=`, `;`, `<`, ...) becomes an `other` token so that
 * {@link screenTokens} can explain it in context.
 *
 * @module
 */

import { CalcError } from "./calc_error.ts";
import { isNameChar, scanNumber, startsNumber } from "./number_literal.ts";
import type { Rational } from "./rational.ts";
import { describeForeignCharacter } from "./unicode.ts";

/** The arithmetic operators (`^` is an alias of `**`). */
export type Operator = "+" | "-" | "*" | "/" | "//" | "%" | "**" | "^";

/** One token; `pos` is its 0-based offset in the expression. */
export type Token =
  | { kind: "number"; value: Rational; text: string; pos: number }
  | { kind: "name"; text: string; pos: number }
  | { kind: "operator"; text: Operator; pos: number }
  | { kind: "punct"; text: "(" | ")" | "[" | "]" | "," | "."; pos: number }
  | { kind: "other"; text: string; pos: number }
  | { kind: "end"; text: ""; pos: number };

const OPERATORS: readonly Operator[] = ["**", "//", "+", "-", "*", "/", "%", "^"];
const PUNCTUATION = new Set(["(", ")", "[", "]", ",", "."]);
// Longest first, so `==` is one token rather than two `=`.
const OTHERS = ["==", "!=", "<=", ">=", "<<", ">>", ":=", "->"];
const WHITESPACE = new Set([" ", "\t", "\n", "\r", "\f", "\v"]);

/**
 * The tokens of `text`, ending with an `end` token.
 * @throws {CalcError} for non-ASCII characters and malformed or oversized numbers.
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const cp = text.codePointAt(i) ?? 0;
    if (WHITESPACE.has(c)) {
      i++;
    } else if (cp < 0x20 || cp > 0x7e) {
      throw new CalcError("unsupported", describeForeignCharacter(cp, i), i);
    } else if (startsNumber(text, i)) {
      const literal = scanNumber(text, i);
      tokens.push({
        kind: "number",
        value: literal.value,
        text: text.slice(i, literal.end),
        pos: i,
      });
      i = literal.end;
    } else if (/[A-Za-z_]/.test(c)) {
      let end = i + 1;
      while (end < text.length && isNameChar(text[end])) end++;
      tokens.push({ kind: "name", text: text.slice(i, end), pos: i });
      i = end;
    } else if (PUNCTUATION.has(c)) {
      tokens.push({ kind: "punct", text: c as "(" | ")" | "[" | "]" | "," | ".", pos: i });
      i++;
    } else {
      const operator = OPERATORS.find((op) => text.startsWith(op, i));
      const other = OTHERS.find((op) => text.startsWith(op, i));
      if (operator && !(other && other.length > operator.length)) {
        tokens.push({ kind: "operator", text: operator, pos: i });
        i += operator.length;
      } else {
        const symbol = other ?? c;
        tokens.push({ kind: "other", text: symbol, pos: i });
        i += symbol.length;
      }
    }
  }
  tokens.push({ kind: "end", text: "", pos: text.length });
  return tokens;
}
