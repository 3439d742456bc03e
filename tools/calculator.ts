/**
 * `calculator`: exact arithmetic for a model that should not do sums in its
 * head. The expression is tokenized, parsed and evaluated by our own code
 * (lib/calc/) — never by `eval`, `Function` or a dynamic import — over a
 * whitelist, with exact BigInt rationals.
 *
 * Grammar (Python's precedence and semantics):
 * - numbers: `12`, `0.5`, `.5`, `5.`, `1.5e3`, `2E-4`, and `1_000_000`
 *   (Python's rule: single underscores between digits; `1,000` is refused
 *   with a hint). Literals are read exactly: `0.1` is 1/10.
 * - `+ - * /` (exact: `0.1 + 0.2` is `0.3`), `//` and `%` with floor
 *   semantics (-7 // 2 = -4, -7 % 2 = 1, 7 % -2 = -1, on fractions too),
 *   `**` or its alias `^`, right-associative and binding tighter than a
 *   unary sign on its left (-2 ** 2 = -4, 2 ** -1 = 0.5), parentheses.
 * - `round(x)`, `round(x, digits)`: ties to even on the exact value
 *   (round(2.5) = 2, round(0.125, 2) = 0.12); digits may be negative
 *   (round(1250, -2) = 1200).
 * - `min`, `max`, `sum` take any number of arguments, each a number or a list
 *   `[a, b, ...]` whose items count as arguments: sum(1, 2, 3) =
 *   sum([1, 2, 3]) = 6; sum([]) = 0. `abs(x)`.
 * - `pi`, `e`: floating point. An integer exponent is exact (negative gives
 *   the reciprocal); any other exponent, and pi and e, switch the
 *   calculation to floating point: the result says so (`approximate`).
 * - Everything else is refused with a message that says what is allowed:
 *   names, attributes, strings, other functions, keyword arguments,
 *   comprehensions, lambdas, assignments, comparisons, semicolons, Unicode
 *   digits and look-alike operators (named with their U+ code and the ASCII
 *   to use instead), and any other non-ASCII character.
 *
 * Limits (each checked before the work it bounds): 500 characters; 200
 * syntax nodes; nesting 100 deep (parentheses, brackets, calls, exponents);
 * exponents at most 1000 in magnitude; numerators and denominators, literals
 * included, at most 3000 digits, with the size of a power estimated before
 * computing it. So `9**9**9` and `10**5000` fail in well under a millisecond.
 *
 * Output: the value as text. Integers print in full; a non-integer prints
 * exactly when its decimals end within 20 places, else it is rounded (ties to
 * even, from the exact value) to 15 significant digits or one decimal place,
 * whichever keeps more, e.g. 500/19 -> 26.3157894736842; below 1e-6 in
 * scientific notation. Floating-point results: 15 significant digits, plus a
 * note in the output. `data`: `value` (the text), `exact` (the text is the
 * exact result), `approximate` (floating point was used), `fraction` (exact
 * non-integer results, e.g. "500/19"), `approximate_because` (e.g. ["pi"]).
 *
 * Errors: syntax, refusals and limits are `invalid_args` (fix the
 * expression); arithmetic failures — division or modulo by zero, no real
 * result, floating-point overflow — are `execution`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, toolError, toolResult } from "./define_tool.ts";
import type { JsonValue } from "../lib/types.ts";

/**
 * The evaluator, loaded on first use: the run's main thread, which only describes the tool, never
 * loads it (see "Start-up" in docs/architecture.md).
 */
let loading: Promise<typeof import("../lib/calc/calculate.ts")> | undefined;
const engine = () => loading ??= import("../lib/calc/calculate.ts");

const parameters = z.strictObject({
  expression: z.string().describe(
    "The arithmetic to evaluate, e.g. `(1200 - 950) / 950 * 100`. Operators: + - * / // % " +
      "** (or ^) and parentheses; functions round(x, digits), min, max, sum, abs; constants " +
      "pi and e. Plain ASCII numbers without thousands separators; at most 500 characters.",
  ),
});

/** The built-in `calculator` tool: exact arithmetic on a whitelisted expression. */
export const calculator = defineTool({
  name: "calculator",
  description: "Evaluate an arithmetic expression with exact arithmetic (0.1 + 0.2 is exactly " +
    "0.3, integers never lose digits). Use it for every calculation rather than working the " +
    "numbers out yourself.",
  parameters,
  sideEffects: "none",
  readsCorpus: false,
  load: engine,
  async run(args) {
    const { calculate, CalcError } = await engine();
    let result;
    try {
      result = calculate(args.expression);
    } catch (error) {
      if (!(error instanceof CalcError)) throw error;
      const kind = error.kind === "math" ? "execution" : "invalid_args";
      return toolError(kind, error.message, { detail: `${error.kind}: ${error.message}` });
    }
    const data: Record<string, JsonValue> = {
      value: result.value,
      exact: result.exact,
      approximate: result.approximate,
    };
    if (result.fraction !== undefined) data.fraction = result.fraction;
    let output = result.value;
    if (result.approximate) {
      data.approximate_because = result.approximateBecause;
      output += ` (approximate: floating point was used for ${listed(result.approximateBecause)})`;
    }
    return toolResult({ output, data });
  },
});

function listed(items: string[]): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
