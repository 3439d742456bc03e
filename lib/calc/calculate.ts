/**
 * The calculator's entry point: text in, formatted value out. Checks run
 * cheapest first (length, then characters and literals, then syntax and the
 * node and depth limits, then the arithmetic with its size checks), but each
 * stage is bounded on its own, so no input relies on an earlier check to stay
 * fast or to avoid a stack overflow.
 *
 * @module
 */

import type { Node } from "./ast.ts";
import { CalcError } from "./calc_error.ts";

export { CalcError };
import { evaluate } from "./evaluator.ts";
import { formatRational, formatSignificant } from "./format.ts";
import { rationalFromFloat } from "./float_math.ts";
import { MAX_EXPRESSION_CHARS } from "./limits.ts";
import { parseTokens } from "./parser.ts";
import { fractionText } from "./rational.ts";
import { screenTokens } from "./screen.ts";
import { tokenize } from "./tokenizer.ts";

/** The result of a calculation. */
export interface Calculation {
  /** The value as text (see format.ts for the rules). */
  value: string;
  /** True when `value` is exactly the result (no rounding, no floating point). */
  exact: boolean;
  /** True when floating point was used (pi, e, a non-integer power). */
  approximate: boolean;
  /** The exact result as "numerator/denominator", for exact non-integers only. */
  fraction?: string;
  /** Why the result is approximate, e.g. ["pi", "a non-integer power"]; empty if not. */
  approximateBecause: string[];
}

/**
 * Evaluates an arithmetic expression.
 * @throws {CalcError} for anything wrong with the expression or its value.
 */
export function calculate(expression: string): Calculation {
  if (expression.length > MAX_EXPRESSION_CHARS) {
    throw new CalcError(
      "limit",
      `The expression is ${expression.length} characters long; the limit is ` +
        `${MAX_EXPRESSION_CHARS}. Split the calculation into several calls.`,
    );
  }
  const { value, approximateBecause } = evaluate(parseExpression(expression));
  if (value.kind === "float") {
    const formatted = formatSignificant(rationalFromFloat(value.x));
    return { value: formatted.text, exact: false, approximate: true, approximateBecause };
  }
  const formatted = formatRational(value.q);
  const approximate = approximateBecause.length > 0;
  return {
    value: formatted.text,
    exact: formatted.exact && !approximate,
    approximate,
    ...(value.q.den !== 1n && !approximate ? { fraction: fractionText(value.q) } : {}),
    approximateBecause,
  };
}

/**
 * The syntax tree of `expression`, without the length check (for tests and
 * callers with their own limit); still bounded by the node and depth limits.
 * @throws {CalcError} for unsupported characters and constructs and syntax errors.
 */
export function parseExpression(expression: string): Node {
  const tokens = tokenize(expression);
  screenTokens(tokens);
  return parseTokens(tokens);
}
