import assert from "node:assert/strict";
import { calculator } from "../../tools/calculator.ts";
import { parametersJsonSchema } from "../../tools/define_tool.ts";
import { invokeTool, type RawToolResult } from "../../tools/invoke.ts";
import { ALLOWED_SUMMARY } from "../../lib/calc/calc_error.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";
import { withinCpuAsync } from "../support/cpu_time.ts";

const ctx = contextFor(corpusOf([]));
const ALLOWED = ALLOWED_SUMMARY;

function calc(expression: unknown): Promise<RawToolResult> {
  return invokeTool(calculator, { expression }, ctx);
}

/** Evaluates and returns the output, failing with the error message if there is one. */
async function outputOf(expression: string): Promise<string> {
  const result = await calc(expression);
  assert.equal(result.error, null, `${expression}: ${result.error?.message}`);
  return result.output;
}

async function dataOf(expression: string): Promise<Record<string, unknown>> {
  const result = await calc(expression);
  assert.equal(result.error, null, `${expression}: ${result.error?.message}`);
  return result.data as Record<string, unknown>;
}

/** Runs a table of [expression, expected output]. */
async function expectOutputs(t: Deno.TestContext, table: Array<[string, string]>) {
  for (const [expression, expected] of table) {
    await t.step(`${JSON.stringify(expression)} -> ${expected}`, async () => {
      assert.equal(await outputOf(expression), expected);
    });
  }
}

/** Runs a table of [expression, expected error message] for one error kind. */
async function expectErrors(
  t: Deno.TestContext,
  kind: "invalid_args" | "execution",
  table: Array<[string, string]>,
) {
  for (const [expression, message] of table) {
    await t.step(JSON.stringify(expression), async () => {
      const result = await calc(expression);
      assert.equal(result.error?.message, message);
      assert.equal(result.error?.kind, kind);
      assert.equal(result.output, "");
    });
  }
}

Deno.test("calculator is a side-effect-free tool with one required string argument", () => {
  assert.equal(calculator.name, "calculator");
  assert.equal(calculator.sideEffects, "none");
  const schema = parametersJsonSchema(calculator) as {
    properties: Record<string, { type: string; description: string }>;
    required: string[];
  };
  assert.deepEqual(Object.keys(schema.properties), ["expression"]);
  assert.deepEqual(schema.required, ["expression"]);
  assert.equal(schema.properties.expression.type, "string");
  assert.match(schema.properties.expression.description, /\(1200 - 950\) \/ 950 \* 100/);
  assert.match(schema.properties.expression.description, /round\(x, digits\), min, max, sum/);
});

Deno.test("calculator computes exactly with rationals", async (t) => {
  await expectOutputs(t, [
    ["(1200 - 950) / 950 * 100", "26.3157894736842"],
    ["0.1 + 0.2", "0.3"],
    ["0.1 + 0.2 - 0.3", "0"],
    ["2 ** 100", "1267650600228229401496703205376"],
    ["123456789012345678901234567890 * 10 + 1", "1234567890123456789012345678901"],
    ["1 / 3", "0.333333333333333"],
    ["2 / 3", "0.666666666666667"],
    ["-1 / 3", "-0.333333333333333"],
    ["1 / 3 * 3", "1"],
    ["10 ** 15 / 7", "142857142857142.9"],
    ["10 ** 20 / 3", "33333333333333333333.3"],
    ["1e-7 / 3", "3.33333333333333e-8"],
    ["2 ** -30", "9.31322574615479e-10"],
    ["1 / 1024", "0.0009765625"],
    ["100000000000000000000.5 * 1", "100000000000000000000.5"],
    ["3 - 3.0", "0"],
    ["-0.5", "-0.5"],
  ]);
});

Deno.test("calculator data carries the exact fraction and flags", async () => {
  assert.deepEqual(await dataOf("(1200 - 950) / 950 * 100"), {
    value: "26.3157894736842",
    exact: false,
    approximate: false,
    fraction: "500/19",
  });
  assert.deepEqual(await dataOf("0.1 + 0.2"), {
    value: "0.3",
    exact: true,
    approximate: false,
    fraction: "3/10",
  });
  assert.deepEqual(await dataOf("2 ** 100"), {
    value: "1267650600228229401496703205376",
    exact: true,
    approximate: false,
  });
});

Deno.test("calculator reads number literals exactly, with underscores and exponents", async (t) => {
  await expectOutputs(t, [
    ["1.5e3", "1500"],
    ["2E-4", "0.0002"],
    ["1.e2", "100"],
    [".5", "0.5"],
    ["5.", "5"],
    ["1_000_000 * 2", "2000000"],
    ["0.000_001", "0.000001"],
    ["1e-20", "0.00000000000000000001"],
    ["1e-21", "1e-21"],
    ["007", "7"],
  ]);
});

Deno.test("calculator applies Python's precedence and associativity", async (t) => {
  await expectOutputs(t, [
    ["-2 ** 2", "-4"],
    ["(-2) ** 2", "4"],
    ["2 ** 3 ** 2", "512"],
    ["2 ^ 3 ^ 2", "512"],
    ["2 ** -1", "0.5"],
    ["(-2) ** -3", "-0.125"],
    ["1 - 2 - 3", "-4"],
    ["2 * 3 + 4 * 5", "26"],
    ["100 / 10 / 5", "2"],
    ["--1", "1"],
    ["+-+1", "-1"],
    ["-2 ** -2", "-0.25"],
  ]);
});

Deno.test("calculator ignores ASCII whitespace around tokens", async (t) => {
  await expectOutputs(t, [
    [" \t1 +\n2 \r\n", "3"],
    ["max( 1 ,\t2 )", "2"],
    ["2**  3", "8"],
  ]);
});

Deno.test("calculator floor division and modulo follow Python's signs", async (t) => {
  await expectOutputs(t, [
    ["-7 // 2", "-4"],
    ["-7 % 2", "1"],
    ["7 % -2", "-1"],
    ["7 // -2", "-4"],
    ["-7 % -2", "-1"],
    ["7 // 2", "3"],
    ["-7.5 // 2", "-4"],
    ["-7.5 % 2", "0.5"],
    ["(-2/3) // (1/4)", "-3"],
    ["(-2/3) % (1/4)", "0.0833333333333333"],
    ["(2/3) % (-1/4)", "-0.0833333333333333"],
  ]);
  await t.step("rational modulo keeps the exact fraction", async () => {
    assert.equal((await dataOf("(-2/3) % (1/4)")).fraction, "1/12");
  });
});

Deno.test("calculator round() rounds half to even on the exact value", async (t) => {
  await expectOutputs(t, [
    ["round(2.5)", "2"],
    ["round(3.5)", "4"],
    ["round(-2.5)", "-2"],
    ["round(-0.5)", "0"],
    ["round(0.125, 2)", "0.12"],
    ["round(0.375, 2)", "0.38"],
    ["round(2.675, 2)", "2.68"],
    ["round(1250, -2)", "1200"],
    ["round(1350, -2)", "1400"],
    ["round(1 / 3, 4)", "0.3333"],
    ["round(26.3157894736842, 0)", "26"],
    ["round(2 ** 0.5 * 100)", "141 (approximate: floating point was used for a non-integer power)"],
  ]);
});

Deno.test("calculator falls back to floating point and says so", async (t) => {
  await expectOutputs(t, [
    ["2 ** 0.5", "1.4142135623731 (approximate: floating point was used for a non-integer power)"],
    ["4 ** 0.5", "2 (approximate: floating point was used for a non-integer power)"],
    ["pi", "3.14159265358979 (approximate: floating point was used for pi)"],
    ["e ** 2", "7.38905609893065 (approximate: floating point was used for e)"],
    ["round(pi, 2)", "3.14 (approximate: floating point was used for pi)"],
    ["pi * 10 ** 20", "3.14159265358979e+20 (approximate: floating point was used for pi)"],
    [
      "pi * e ** 0.5",
      "5.17961063184875 (approximate: floating point was used for pi, e and a non-integer power)",
    ],
  ]);
  await t.step("data flags the result approximate and gives no fraction", async () => {
    assert.deepEqual(await dataOf("2 ** 0.5"), {
      value: "1.4142135623731",
      exact: false,
      approximate: true,
      approximate_because: ["a non-integer power"],
    });
  });
});

Deno.test("calculator min, max, sum and abs take numbers and lists", async (t) => {
  await expectOutputs(t, [
    ["min(3, 1, 2)", "1"],
    ["max([1, 5, 2])", "5"],
    ["max(1, [7, 2], 3)", "7"],
    ["sum(1, 2, 3)", "6"],
    ["sum([1, 2, 3])", "6"],
    ["sum([1, 2], 3)", "6"],
    ["sum([0.1, 0.2])", "0.3"],
    ["sum([])", "0"],
    ["sum(5)", "5"],
    ["max(1, 2,)", "2"],
    ["abs(-3.5)", "3.5"],
    ["abs(2 - 5) * 2", "6"],
    ["max(1/3, 0.3333)", "0.333333333333333"],
    ["min(pi, 22/7)", "3.14159265358979 (approximate: floating point was used for pi)"],
  ]);
});

Deno.test("calculator refuses exponent and size bombs within 1000 ms", async (t) => {
  const table: Array<[string, string]> = [
    [
      "9**9**9",
      "The exponent 387420489 at character 2 is too large: exponents are limited to 1000 in " +
      "magnitude (results to 3000 digits).",
    ],
    [
      "10**5000",
      "The exponent 5000 at character 3 is too large: exponents are limited to 1000 in " +
      "magnitude (results to 3000 digits).",
    ],
    [
      "2**1000 ** 2",
      "The exponent 1000000 at character 2 is too large: exponents are limited to 1000 in " +
      "magnitude (results to 3000 digits).",
    ],
    [
      "(10**1000)**1000",
      "The power at character 11 would have about 1000000 digits; exact values are limited to " +
      "3000 digits. Use a smaller base or exponent.",
    ],
    [
      "12345**1000",
      "The power at character 6 would have about 4092 digits; exact values are limited to 3000 " +
      "digits. Use a smaller base or exponent.",
    ],
    [
      "(1/3)**1000 / 7**1000 / 11**1000 / 13**1000",
      "The result of '/' at character 34 has 3478 digits (denominator); exact values are " +
      "limited to 3000 digits. Use smaller numbers or split the calculation.",
    ],
    [
      "10**1000 * 10**1000 * 10**1000",
      "The result of '*' at character 21 has 3001 digits; exact values are limited to 3000 " +
      "digits. Use smaller numbers or split the calculation.",
    ],
    [
      "1e5000",
      "The number 1e5000 at character 1 is too large: it would have more than 3000 digits, " +
      "the limit for exact values.",
    ],
    [
      "1e999999999999",
      "The number 1e999999999999 at character 1 is too large: it would have more than 3000 " +
      "digits, the limit for exact values.",
    ],
    [
      "1e-7000",
      "The number 1e-7000 at character 1 is too small: as a fraction its denominator would " +
      "have more than 3000 digits, the limit for exact values.",
    ],
  ];
  for (const [expression, message] of table) {
    await t.step(JSON.stringify(expression), async () => {
      const result = await withinCpuAsync(1000, () => calc(expression));
      assert.equal(result.error?.kind, "invalid_args");
      assert.equal(result.error?.message, message);
    });
  }
});

Deno.test("calculator refuses 10,000 nested parentheses by length within 1000 ms of CPU", async () => {
  const result = await withinCpuAsync(
    1000,
    () => calc("(".repeat(10_000) + "1" + ")".repeat(10_000)),
  );
  assert.equal(result.error?.kind, "invalid_args");
  assert.equal(
    result.error?.message,
    "The expression is 20001 characters long; the limit is 500. Split the calculation into " +
      "several calls.",
  );
});

Deno.test("calculator refuses deep nesting, long unary chains and too many nodes", async (t) => {
  await expectErrors(t, "invalid_args", [
    [
      "(".repeat(101) + "1" + ")".repeat(101),
      "The expression is nested more than 100 levels deep at character 101 (parentheses, " +
      "brackets, calls and ** exponents count); simplify it or split it into several calls.",
    ],
    [
      "-".repeat(400) + "1",
      "The expression has more than 200 syntax nodes (numbers, operators, signs and calls); " +
      "split the calculation into several calls.",
    ],
    [
      Array(201).fill("1").join("+"),
      "The expression has more than 200 syntax nodes (numbers, operators, signs and calls); " +
      "split the calculation into several calls.",
    ],
  ]);
  await t.step("100 nested parentheses are still fine", async () => {
    assert.equal(await outputOf("(".repeat(100) + "1" + ")".repeat(100)), "1");
  });
  await t.step("100 unary signs are still fine", async () => {
    assert.equal(await outputOf("-".repeat(100) + "1"), "1");
  });
});

Deno.test("calculator refuses Unicode digits and look-alike operators, naming them", async (t) => {
  await expectErrors(t, "invalid_args", [
    [
      "١٢٣ + 1",
      "Unicode digit '١' (U+0661) at character 1 is not supported: write ASCII digits 0-9 " +
      "(this one is 1).",
    ],
    [
      "١٢٣".slice(1),
      "Unicode digit '٢' (U+0662) at character 1 is not supported: write ASCII digits 0-9 " +
      "(this one is 2).",
    ],
    [
      "１２３",
      "Unicode digit '１' (U+FF11) at character 1 is not supported: write ASCII digits 0-9 " +
      "(this one is 1).",
    ],
    [
      "2²",
      "Superscript '²' (U+00B2) at character 2 is not supported: write powers with **, e.g. x ** 2.",
    ],
    [
      "5 − 3",
      "'−' (U+2212 MINUS SIGN) at character 3 is not supported: write the ASCII '-' instead.",
    ],
    [
      "2 × 3",
      "'×' (U+00D7 MULTIPLICATION SIGN) at character 3 is not supported: write the ASCII '*' " +
      "instead.",
    ],
    [
      "6 ÷ 2",
      "'÷' (U+00F7 DIVISION SIGN) at character 3 is not supported: write the ASCII '/' instead.",
    ],
    [
      "1 ＋ 1",
      "'＋' (U+FF0B FULLWIDTH PLUS SIGN) at character 3 is not supported: write the ASCII '+' " +
      "instead.",
    ],
    [
      "2 ＊ 3",
      "'＊' (U+FF0A FULLWIDTH ASTERISK) at character 3 is not supported: write the ASCII '*' " +
      "instead.",
    ],
    [
      "2 * π",
      "'π' (U+03C0 GREEK SMALL LETTER PI) at character 5 is not supported: write the ASCII " +
      "'pi' instead.",
    ],
    [
      "1\u00a0+ 2",
      "U+00A0 NO-BREAK SPACE at character 2 is not supported: use an ordinary space.",
    ],
    [
      "½",
      "Unicode number '½' (U+00BD) at character 1 is not supported: write the ASCII '1/2' " +
      "instead.",
    ],
    [
      "x\u0000",
      "Control character U+0000 at character 2 is not supported. Use plain ASCII: digits 0-9, " +
      "+ - * / // % ** ^ ( ) [ ] , . and spaces.",
    ],
  ]);
});

Deno.test("calculator refuses names, attributes, strings and other Python", async (t) => {
  await expectErrors(t, "invalid_args", [
    [
      "x + 1",
      "Unknown name 'x' at character 1: the calculator has no variables; the only names are " +
      `pi and e, so put the number itself in the expression. ${ALLOWED}`,
    ],
    [
      "foo",
      "Unknown name 'foo' at character 1: the calculator has no variables; the only names are " +
      `pi and e, so put the number itself in the expression. ${ALLOWED}`,
    ],
    [
      "PI * 2",
      "Unknown name 'PI' at character 1: the calculator has no variables; the only names are " +
      `pi and e, so put the number itself in the expression. Did you mean pi? ${ALLOWED}`,
    ],
    ["a.b", `Attribute access 'a.b' at character 1 is not supported. ${ALLOWED}`],
    [
      "math.pi",
      `Attribute access 'math.pi' at character 1 is not supported. Write just pi. ${ALLOWED}`,
    ],
    ["(1).real", `Attribute access '.real' at character 4 is not supported. ${ALLOWED}`],
    ["1.real", `Attribute access '.real' at character 2 is not supported. ${ALLOWED}`],
    [
      "'a'",
      `"'" at character 1: strings are not supported: the calculator only computes with ` +
      `numbers. ${ALLOWED}`,
    ],
    [
      '"a" * 3',
      `'"' at character 1: strings are not supported: the calculator only computes with ` +
      `numbers. ${ALLOWED}`,
    ],
    [
      "pow(2, 3)",
      "Function 'pow' at character 1 is not supported: for a power write x ** y; the only " +
      `functions are round, min, max, sum and abs. ${ALLOWED}`,
    ],
    [
      "sqrt(2)",
      "Function 'sqrt' at character 1 is not supported: for a square root write x ** 0.5; the " +
      `only functions are round, min, max, sum and abs. ${ALLOWED}`,
    ],
    [
      "Max(1, 2)",
      "Function 'Max' at character 1 is not supported: did you mean max? the only functions " +
      `are round, min, max, sum and abs. ${ALLOWED}`,
    ],
    [
      "__import__('os')",
      `"'" at character 12: strings are not supported: the calculator only computes with ` +
      `numbers. ${ALLOWED}`,
    ],
    [
      "__import__(1)",
      "Function '__import__' at character 1 is not supported: the only functions are round, " +
      `min, max, sum and abs. ${ALLOWED}`,
    ],
    [
      "[x for x in range(10)]",
      `'for' at character 4: comprehensions and loops are not supported. ${ALLOWED}`,
    ],
    [
      "sum(x for x in [1, 2])",
      `'for' at character 7: comprehensions and loops are not supported. ${ALLOWED}`,
    ],
    ["lambda: 1", `'lambda' at character 1: lambda functions are not supported. ${ALLOWED}`],
    [
      "round(2.5, ndigits=1)",
      "'ndigits=' at character 12: keyword arguments are not supported; pass arguments by " +
      `position, e.g. round(x, 2). ${ALLOWED}`,
    ],
    [
      "1; 2",
      `';' at character 2: semicolons are not supported: send one expression per call. ${ALLOWED}`,
    ],
    [
      "x = 5",
      "'=' at character 3: assignments are not supported; write the number itself where you " +
      `need it. ${ALLOWED}`,
    ],
    [
      "(y := 2)",
      "':=' at character 4: assignments are not supported: write the number itself where you " +
      `need it. ${ALLOWED}`,
    ],
    ["1 < 2", `'<' at character 3: comparisons are not supported. ${ALLOWED}`],
    [
      "1 if 1 else 2",
      `'if' at character 3: conditional expressions are not supported. ${ALLOWED}`,
    ],
    [
      "{1: 2}",
      "'{' at character 1: braces are not supported: group with ( ) and write lists for min, " +
      `max and sum with [ ]. ${ALLOWED}`,
    ],
    [
      "import os",
      "'import' at character 1: statements are not supported; send a single arithmetic " +
      `expression. ${ALLOWED}`,
    ],
    [
      "True + 1",
      `'True' at character 1: True, False and None are not supported; use numbers. ${ALLOWED}`,
    ],
    ["abs", "'abs' at character 1 is a function: call it with parentheses, e.g. abs(-3)."],
    [
      "[1, 2]",
      "A list [...] at character 1 can only be an argument of min, max or sum, e.g. " +
      "max([1, 2, 3]).",
    ],
    [
      "max([1, 2] + [3])",
      "A list cannot be used in arithmetic (+ at character 12); pass it whole to max, e.g. " +
      "max([1, 2, 3]).",
    ],
    [
      "sum([[1]])",
      "Nested lists at character 6 are not supported: write one flat list, e.g. sum([1, 2, 3]).",
    ],
    [
      "round([1.5])",
      "round() at character 1 does not take a list; lists [...] are only for min, max and sum.",
    ],
    [
      "(1, 2)",
      "Tuples are not supported (the ',' at character 3): use parentheses only for grouping, " +
      "and [ ] for a list of numbers in min, max or sum.",
    ],
  ]);
});

Deno.test("calculator explains syntax errors and wrong argument counts", async (t) => {
  await expectErrors(t, "invalid_args", [
    ["", "The expression is empty: pass arithmetic such as (1200 - 950) / 950 * 100."],
    [" \t\n", "The expression is empty: pass arithmetic such as (1200 - 950) / 950 * 100."],
    ["1 +", "The expression ends too early: expected a number after '+' at character 3."],
    ["* 2", "Expected a number, '(' or a function before '*' at character 1."],
    ["(1 + 2", "Missing ')' to close the '(' at character 1."],
    ["max(1, 2", "Missing ')' to close the '(' at character 1."],
    ["1 + 2)", "Unmatched ')' at character 6."],
    ["()", "Empty parentheses at character 1."],
    [
      "2(3 + 4)",
      "Missing operator before '(' at character 2: write the operator, e.g. 2 * (3 + 4) or " +
      "2 * pi; implicit multiplication is not supported.",
    ],
    [
      "2pi",
      "Malformed number '2pi' at character 1: a number cannot be followed directly by a name; " +
      "write the multiplication explicitly: 2 * pi.",
    ],
    [
      "1,000 + 1",
      "Unexpected ',' at character 2: commas only separate the arguments of round, min, max " +
      "and sum; write numbers without thousands separators (1000 or 1_000, not 1,000).",
    ],
    [
      "1 000",
      "Missing operator before '000' at character 3: write numbers without spaces or thousands " +
      "separators (1000 or 1_000), and put an operator between two numbers.",
    ],
    [
      "15%",
      "The expression ends too early: expected a number after '%' at character 3. '%' is the " +
      "remainder operator; for a percentage write x / 100 * y, e.g. 15 / 100 * 80.",
    ],
    [
      "1__000",
      "Malformed number '1__000' at character 1: an underscore in a number may only stand " +
      "between two digits, as in 1_000_000.",
    ],
    [
      "1_",
      "Malformed number '1_' at character 1: an underscore in a number may only stand between " +
      "two digits, as in 1_000_000.",
    ],
    [
      "0x1F",
      "Malformed number '0x1F' at character 1: hexadecimal, octal and binary literals are not " +
      "supported: write the number in decimal.",
    ],
    [
      "2e",
      "Malformed number '2e' at character 1: write scientific notation with digits after the e " +
      "(2e3, 2e-3), or multiply by the constant e explicitly (2 * e).",
    ],
    ["3j", "Malformed number '3j' at character 1: complex numbers are not supported."],
    [
      "round(1, 2, 3)",
      "round() at character 1 takes 1 or 2 arguments: round(x) or round(x, digits); got 3 " +
      "arguments.",
    ],
    ["abs()", "abs() at character 1 takes exactly 1 argument: abs(x); got 0 arguments."],
    [
      "min()",
      "min() at character 1 needs at least one number: min(a, b, ...) or min([a, b, ...]); got " +
      "0 arguments.",
    ],
    [
      "max([])",
      "max() at character 1 needs at least one number: max(a, b, ...) or max([a, b, ...]); got " +
      "1 argument.",
    ],
    [
      "sum()",
      "sum() at character 1 needs at least one argument: sum(a, b, ...) or sum([a, b, ...]); " +
      "got 0 arguments.",
    ],
    [
      "round(2.5, 0.5)",
      "round() at character 1 needs a whole number of digits, e.g. round(x, 2); got a fraction.",
    ],
    [
      "round(2.5, 5000)",
      "round() at character 1: 5000 digits is out of range; use -1000 to 1000.",
    ],
  ]);
});

Deno.test("calculator reports arithmetic failures as execution errors", async (t) => {
  await expectErrors(t, "execution", [
    ["1 / 0", "Division by zero at character 3 ('/' with a right-hand side of 0)."],
    ["1 / (2 - 2.0)", "Division by zero at character 3 ('/' with a right-hand side of 0)."],
    ["5 // 0", "Division by zero at character 3 ('//' with a right-hand side of 0)."],
    ["5 % 0", "Modulo by zero at character 3 ('%' with a right-hand side of 0)."],
    ["1 / (pi - pi)", "Division by zero at character 3 ('/' with a right-hand side of 0)."],
    ["0 ** -1", "Division by zero at character 3: 0 cannot be raised to a negative power."],
    [
      "(-8) ** (1/3)",
      "The result of '**' at character 6 is not a real number: a negative number raised to a " +
      "non-integer power has no real value.",
    ],
    [
      "10 ** 400.5",
      "The result of '**' at character 4 overflows floating point (beyond about 1.8e308); only " +
      "exact arithmetic (no pi, e or non-integer powers) can go further.",
    ],
    [
      "10 ** 400 * pi",
      "An operand of '*' at character 11 is too large for floating point (beyond about " +
      "1.8e308), which pi, e and non-integer powers need.",
    ],
  ]);
});

Deno.test("calculator argument errors through invokeTool name the argument", async (t) => {
  const table: Array<[string, unknown, string]> = [
    ["missing", {}, 'Invalid arguments for calculator: missing required argument "expression".'],
    [
      "a number",
      { expression: 5 },
      'Invalid arguments for calculator: "expression": Invalid input: expected string, ' +
      "received number.",
    ],
    [
      "null",
      { expression: null },
      'Invalid arguments for calculator: missing required argument "expression".',
    ],
    [
      "a list",
      { expression: ["1 + 1"] },
      'Invalid arguments for calculator: "expression": Invalid input: expected string, ' +
      "received array.",
    ],
    [
      "a misspelt name",
      { expr: "1 + 1" },
      'Invalid arguments for calculator: missing required argument "expression"; unknown ' +
      'argument "expr" (expected: expression).',
    ],
  ];
  for (const [what, args, message] of table) {
    await t.step(what, async () => {
      const result = await invokeTool(calculator, args, ctx);
      assert.equal(result.error?.kind, "invalid_args");
      assert.equal(result.error?.message, message);
    });
  }
});
