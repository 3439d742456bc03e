/**
 * The parser's syntax-error messages. Each looks at the offending token and
 * its neighbours to name the likely mistake (implicit multiplication, a
 * thousands separator, `%` used as a percent sign, ...) and the fix.
 *
 * @module
 */

import { FUNCTION_NAMES } from "./ast.ts";
import { ALLOWED_SUMMARY, at, CalcError } from "./calc_error.ts";
import type { Token } from "./tokenizer.ts";

/** Where the parser was when it met a token it cannot use. */
export type ParseContext = "top" | "paren" | "call" | "list";

/** `name.attr`: `dot` is the index of the "." token, `pos` the offset of the name. */
export function attributeError(
  tokens: readonly Token[],
  dot: number,
  name: string,
  pos: number,
): CalcError {
  const attribute = tokens[dot + 1];
  const attr = attribute?.kind === "name" ? attribute.text : "";
  const known = attr === "pi" || attr === "e" || FUNCTION_NAMES.some((f) => f === attr);
  const hint = known ? ` Write just ${attr}.` : "";
  return new CalcError(
    "unsupported",
    `Attribute access '${name}.${attr}'${at(pos)} is not supported.${hint} ${ALLOWED_SUMMARY}`,
    pos,
  );
}

/**
 * The token at `index` cannot follow the complete operand before it;
 * `openedAt` is the offset of the bracket or call the parser is inside.
 */
export function unexpectedToken(
  tokens: readonly Token[],
  index: number,
  context: ParseContext,
  openedAt = 0,
): CalcError {
  const t = tokens[index];
  const previous = tokens[index - 1];
  if (t.kind === "number" || t.kind === "name" || (t.kind === "punct" && t.text === "(")) {
    const shown = t.kind === "punct" ? "'('" : `'${t.text}'`;
    const bothNumbers = t.kind === "number" && previous?.kind === "number";
    const fix = bothNumbers
      ? "write numbers without spaces or thousands separators (1000 or 1_000), and put an " +
        "operator between two numbers"
      : "write the operator, e.g. 2 * (3 + 4) or 2 * pi; implicit multiplication is not supported";
    return new CalcError("syntax", `Missing operator before ${shown}${at(t.pos)}: ${fix}.`, t.pos);
  }
  if (t.kind === "punct" && t.text === ".") {
    const attr = tokens[index + 1];
    const name = attr?.kind === "name" ? attr.text : "";
    return new CalcError(
      "unsupported",
      `Attribute access '.${name}'${at(t.pos)} is not supported. ${ALLOWED_SUMMARY}`,
      t.pos,
    );
  }
  if (t.kind === "punct" && t.text === "[") {
    return new CalcError("unsupported", `Indexing with [ ]${at(t.pos)} is not supported.`, t.pos);
  }
  if (t.kind === "punct" && t.text === ",") {
    const message = context === "paren"
      ? `Tuples are not supported (the ','${at(t.pos)}): use parentheses only for grouping, and ` +
        "[ ] for a list of numbers in min, max or sum."
      : `Unexpected ','${at(t.pos)}: commas only separate the arguments of round, min, max and ` +
        "sum; write numbers without thousands separators (1000 or 1_000, not 1,000).";
    return new CalcError("syntax", message, t.pos);
  }
  if (t.kind === "end") {
    const what = context === "list" ? "']'" : "')'";
    const opener = context === "list" ? "'['" : "'('";
    return new CalcError("syntax", `Missing ${what} to close the ${opener}${at(openedAt)}.`, t.pos);
  }
  if (t.kind === "punct" && (t.text === ")" || t.text === "]")) {
    const expected = context === "top"
      ? ""
      : context === "list"
      ? ` (expected ',' or ']' to continue the list opened${at(openedAt)})`
      : ` (expected ',' or ')')`;
    return new CalcError("syntax", `Unmatched '${t.text}'${at(t.pos)}${expected}.`, t.pos);
  }
  return new CalcError("syntax", `Unexpected '${t.text}'${at(t.pos)}.`, t.pos);
}

/** The token at `index` stands where an operand should start, and is not one. */
export function missingOperand(tokens: readonly Token[], index: number): CalcError {
  const t = tokens[index];
  const previous = tokens[index - 1];
  const percent = previous?.kind === "operator" && previous.text === "%"
    ? " '%' is the remainder operator; for a percentage write x / 100 * y, e.g. 15 / 100 * 80."
    : "";
  if (t.kind === "end") {
    const after = previous ? ` after '${previous.text}'${at(previous.pos)}` : "";
    return new CalcError(
      "syntax",
      `The expression ends too early: expected a number${after}.${percent}`,
      t.pos,
    );
  }
  if (t.kind === "punct" && t.text === ")" && previous?.kind === "punct" && previous.text === "(") {
    return new CalcError("syntax", `Empty parentheses${at(previous.pos)}.`, previous.pos);
  }
  return new CalcError(
    "syntax",
    `Expected a number, '(' or a function before '${t.text}'${at(t.pos)}.${percent}`,
    t.pos,
  );
}
