/**
 * Refuses Python constructs the calculator does not support (strings,
 * lambdas, comprehensions, assignments, keyword arguments, comparisons,
 * statements, ...) before parsing, so each gets a message naming the
 * construct instead of a generic syntax error at some later token.
 *
 * @module
 */

import { ALLOWED_SUMMARY, at, CalcError } from "./calc_error.ts";
import type { Token } from "./tokenizer.ts";

const KEYWORDS = new Map<string, string>([
  ["lambda", "lambda functions are not supported"],
  ["for", "comprehensions and loops are not supported"],
  ["async", "comprehensions and loops are not supported"],
  ["while", "loops are not supported"],
  ["if", "conditional expressions are not supported"],
  ["else", "conditional expressions are not supported"],
  ["and", "boolean operators are not supported"],
  ["or", "boolean operators are not supported"],
  ["not", "boolean operators are not supported"],
  ["in", "membership tests are not supported"],
  ["is", "comparisons are not supported"],
  ["True", "True, False and None are not supported; use numbers"],
  ["False", "True, False and None are not supported; use numbers"],
  ["None", "True, False and None are not supported; use numbers"],
  ["await", "await is not supported"],
  ["yield", "yield is not supported"],
]);

const STATEMENTS = new Set([
  "import",
  "from",
  "def",
  "class",
  "return",
  "del",
  "global",
  "nonlocal",
  "pass",
  "raise",
  "try",
  "except",
  "finally",
  "with",
  "assert",
  "break",
  "continue",
]);

const SYMBOLS = new Map<string, string>([
  ["'", "strings are not supported: the calculator only computes with numbers"],
  ['"', "strings are not supported: the calculator only computes with numbers"],
  ["`", "strings are not supported: the calculator only computes with numbers"],
  [";", "semicolons are not supported: send one expression per call"],
  ["==", "comparisons are not supported"],
  ["!=", "comparisons are not supported"],
  ["<", "comparisons are not supported"],
  [">", "comparisons are not supported"],
  ["<=", "comparisons are not supported"],
  [">=", "comparisons are not supported"],
  [":=", "assignments are not supported: write the number itself where you need it"],
  ["->", "annotations are not supported"],
  [":", "':' is not supported (no lambdas, slices, dictionaries or annotations)"],
  ["{", "braces are not supported: group with ( ) and write lists for min, max and sum with [ ]"],
  ["}", "braces are not supported: group with ( ) and write lists for min, max and sum with [ ]"],
  ["&", "bitwise operators are not supported"],
  ["|", "bitwise operators are not supported"],
  ["~", "bitwise operators are not supported"],
  ["<<", "bitwise operators are not supported"],
  [">>", "bitwise operators are not supported"],
  ["!", "'!' is not supported (no factorial and no negation)"],
  ["@", "'@' is not supported (no matrix multiplication or decorators)"],
  ["#", "comments are not supported"],
  ["\\", "backslashes are not supported"],
  ["$", "'$' is not supported: write amounts as plain numbers (1200, not $1,200)"],
]);

/**
 * Throws for the first unsupported construct in `tokens`, reading left to right.
 * @throws {CalcError} of kind `unsupported`.
 */
export function screenTokens(tokens: readonly Token[]): void {
  // For each open bracket: whether it opened a call's argument list.
  const openCalls: boolean[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const previous = tokens[i - 1];
    if (token.kind === "punct") {
      if (token.text === "(" || token.text === "[") {
        openCalls.push(token.text === "(" && previous?.kind === "name");
      } else if (token.text === ")" || token.text === "]") {
        openCalls.pop();
      }
    } else if (token.kind === "name") {
      const keyword = KEYWORDS.get(token.text);
      if (keyword) refuse(`'${token.text}'${at(token.pos)}: ${keyword}`, token.pos);
      if (STATEMENTS.has(token.text)) {
        refuse(
          `'${token.text}'${at(token.pos)}: statements are not supported; send a single ` +
            "arithmetic expression",
          token.pos,
        );
      }
    } else if (token.kind === "other") {
      if (token.text === "=") {
        const inCall = openCalls.length > 0 && openCalls[openCalls.length - 1];
        if (inCall && previous?.kind === "name") {
          refuse(
            `'${previous.text}='${at(previous.pos)}: keyword arguments are not supported; pass ` +
              "arguments by position, e.g. round(x, 2)",
            previous.pos,
          );
        }
        refuse(
          `'='${at(token.pos)}: assignments are not supported; write the number itself ` +
            "where you need it",
          token.pos,
        );
      }
      const shown = token.text.includes("'") ? `"${token.text}"` : `'${token.text}'`;
      const why = SYMBOLS.get(token.text) ?? `${shown} is not supported`;
      refuse(`${shown}${at(token.pos)}: ${why}`, token.pos);
    }
  }
}

function refuse(message: string, pos: number): never {
  throw new CalcError("unsupported", `${message}. ${ALLOWED_SUMMARY}`, pos);
}
