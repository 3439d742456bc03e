/**
 * The error the calculator library throws for anything wrong with an
 * expression or its value. The `calculator` tool catches it and turns it into
 * a tool error; every other exception is a bug.
 *
 * @module
 */

/**
 * What went wrong:
 * - `syntax`: the text is not a well-formed expression;
 * - `unsupported`: well-formed, but uses something outside the whitelist
 *   (a name, a string, another function, a Unicode look-alike, ...);
 * - `limit`: a size limit (length, nodes, nesting, exponent, digits);
 * - `math`: the arithmetic itself fails (division by zero, no real result,
 *   floating-point overflow).
 */
export type CalcErrorKind = "syntax" | "unsupported" | "limit" | "math";

/** One-sentence summary of what the calculator accepts, appended to refusals. */
export const ALLOWED_SUMMARY = "Allowed: numbers, + - * / // % ** (or ^), parentheses, " +
  "round(x, digits), min, max, sum, abs, pi and e.";

/** A problem with an expression; `message` is written for the model that sent it. */
export class CalcError extends Error {
  /** Category, used to choose the tool-error kind. */
  readonly kind: CalcErrorKind;
  /** 0-based offset in the expression where the problem is, when there is one. */
  readonly position: number | undefined;

  constructor(kind: CalcErrorKind, message: string, position?: number) {
    super(message);
    this.name = "CalcError";
    this.kind = kind;
    this.position = position;
  }
}

/** ` at character N` (1-based) for a 0-based offset. */
export function at(position: number): string {
  return ` at character ${position + 1}`;
}
