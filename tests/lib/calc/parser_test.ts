import assert from "node:assert/strict";
import type { Node } from "../../../lib/calc/ast.ts";
import { CalcError } from "../../../lib/calc/calc_error.ts";
import { parseExpression } from "../../../lib/calc/calculate.ts";
import { withinCpu } from "../../support/cpu_time.ts";

/** A compact rendering of a tree: numbers as digits, operators in prefix form. */
function shape(node: Node): string {
  switch (node.type) {
    case "number":
      return node.value.den === 1n ? String(node.value.num) : `${node.value.num}/${node.value.den}`;
    case "constant":
      return node.name;
    case "unary":
      return `(${node.op} ${shape(node.operand)})`;
    case "binary":
      return `(${node.op} ${shape(node.left)} ${shape(node.right)})`;
    case "call":
      return `${node.name}(${node.args.map(shape).join(" ")})`;
    case "list":
      return `[${node.items.map(shape).join(" ")}]`;
  }
}

/** Parses and expects a CalcError; returns it, failing fast on any other outcome. */
function parseError(expression: string): CalcError {
  try {
    parseExpression(expression);
  } catch (error) {
    if (error instanceof CalcError) return error;
    throw error;
  }
  throw new Error(`expected ${expression.slice(0, 40)} to be refused`);
}

Deno.test("parser builds trees with Python's precedence", () => {
  const table: Array<[string, string]> = [
    ["-2 ** 2", "(- (** 2 2))"],
    ["2 ** -1", "(** 2 (- 1))"],
    ["2 ** 3 ** 2", "(** 2 (** 3 2))"],
    ["2 ^ 3", "(** 2 3)"],
    ["1 - 2 - 3", "(- (- 1 2) 3)"],
    ["1 + 2 * 3 // 4 % 5", "(+ 1 (% (// (* 2 3) 4) 5))"],
    ["-(1 + 2) * 3", "(* (- (+ 1 2)) 3)"],
    ["max([1, 2], 3) + pi", "(+ max([1 2] 3) pi)"],
    ["round(0.125, 2)", "round(1/8 2)"],
    ["1.5e3 + 2E-2 + 1_000", "(+ (+ 1500 1/50) 1000)"],
  ];
  for (const [expression, expected] of table) {
    assert.equal(shape(parseExpression(expression)), expected, expression);
  }
});

Deno.test("parser refuses 10,000 nested parentheses by depth, without the length check", () => {
  const error = withinCpu(1000, () => parseError("(".repeat(10_000) + "1" + ")".repeat(10_000)));
  assert.equal(error.kind, "limit");
  assert.equal(
    error.message,
    "The expression is nested more than 100 levels deep at character 101 (parentheses, " +
      "brackets, calls and ** exponents count); simplify it or split it into several calls.",
  );
});

Deno.test("parser stays bounded on huge inputs of every shape, without overflowing the stack", () => {
  const nodes = "The expression has more than 200 syntax nodes (numbers, operators, signs and " +
    "calls); split the calculation into several calls.";
  const table: Array<[string, string, string]> = [
    ["100,000 unary minus signs", "-".repeat(100_000) + "1", nodes],
    ["a chain of 100,000 additions", Array(100_000).fill("1").join("+"), nodes],
    [
      "a chain of 100,000 powers",
      Array(100_000).fill("2").join("**"),
      "The expression is nested more than 100 levels deep at character 302 (parentheses, " +
      "brackets, calls and ** exponents count); simplify it or split it into several calls.",
    ],
    [
      "10,000 nested calls",
      "abs(".repeat(10_000) + "1" + ")".repeat(10_000),
      "The expression is nested more than 100 levels deep at character 401 (parentheses, " +
      "brackets, calls and ** exponents count); simplify it or split it into several calls.",
    ],
    [
      "a 100,000-digit literal",
      "9".repeat(100_000),
      "The number at character 1 has 100000 digits; number literals are limited to 3000 digits.",
    ],
  ];
  for (const [what, expression, message] of table) {
    const error = withinCpu(2000, () => parseError(expression), what);
    assert.equal(error.message, message, what);
  }
});

Deno.test("parser accepts a literal of exactly 3000 digits and refuses 3001", () => {
  assert.equal(shape(parseExpression("9".repeat(3000))), "9".repeat(3000));
  assert.equal(
    parseError("9".repeat(3001)).message,
    "The number at character 1 has 3001 digits; number literals are limited to 3000 digits.",
  );
});
