/**
 * Recursive-descent parser for the calculator's grammar (Python's precedence):
 *
 * ```
 * sum     := product (("+" | "-") product)*
 * product := unary (("*" | "/" | "//" | "%") unary)*
 * unary   := ("+" | "-")* power                 -2 ** 2 = -(2 ** 2)
 * power   := atom [("**" | "^") unary]           right-associative: 2 ** 3 ** 2 = 2 ** 9
 * atom    := NUMBER | "pi" | "e" | "(" sum ")" | FUNCTION "(" [arg ("," arg)* [","]] ")"
 * arg     := sum | "[" [sum ("," sum)* [","]] "]"   (lists: min, max and sum only)
 * ```
 *
 * Recursion only happens through brackets, calls and exponents, and their
 * nesting is capped at {@link MAX_DEPTH}; chains of unary signs are read in a
 * loop. With at most {@link MAX_NODES} nodes, no input can overflow the stack
 * here or in the evaluator, however long it is.
 *
 * @module
 */

import type { FunctionName, Node } from "./ast.ts";
import { FUNCTION_NAMES } from "./ast.ts";
import { ALLOWED_SUMMARY, at, CalcError } from "./calc_error.ts";
import { MAX_DEPTH, MAX_NODES } from "./limits.ts";
import { attributeError, missingOperand, unexpectedToken } from "./parse_errors.ts";
import type { Token } from "./tokenizer.ts";

interface ParserState {
  tokens: readonly Token[];
  next: number;
  nodes: number;
  depth: number;
}

const FUNCTION_LIST = "round, min, max, sum and abs";

const FUNCTION_HINTS = new Map<string, string>([
  ["sqrt", "for a square root write x ** 0.5"],
  ["pow", "for a power write x ** y"],
  ["exp", "for e to a power write e ** x"],
  ["floor", "to round down write x // 1"],
  ["ceil", "to round up write -(-x // 1)"],
  ["int", "to drop the fraction write round(x) or x // 1"],
  ["float", "numbers need no conversion"],
  ["fabs", "write abs(x)"],
  ["fsum", "write sum([...])"],
]);

/**
 * The syntax tree of a token list (from `tokenize`, checked by `screenTokens`).
 * @throws {CalcError} for syntax errors, unsupported names and calls, and the node and depth limits.
 */
export function parseTokens(tokens: readonly Token[]): Node {
  const state: ParserState = { tokens, next: 0, nodes: 0, depth: 0 };
  if (peek(state).kind === "end") {
    throw new CalcError(
      "syntax",
      "The expression is empty: pass arithmetic such as (1200 - 950) / 950 * 100.",
    );
  }
  const node = parseSum(state);
  const last = peek(state);
  if (last.kind !== "end") throw unexpectedToken(state.tokens, state.next, "top");
  return node;
}

function parseSum(s: ParserState): Node {
  let left = parseProduct(s);
  for (let t = peek(s); t.kind === "operator" && (t.text === "+" || t.text === "-"); t = peek(s)) {
    s.next++;
    const right = parseProduct(s);
    left = { type: "binary", op: t.text, left, right, pos: t.pos };
    countNode(s);
  }
  return left;
}

function parseProduct(s: ParserState): Node {
  let left = parseUnary(s);
  for (let t = peek(s); t.kind === "operator" && isProductOperator(t.text); t = peek(s)) {
    s.next++;
    const right = parseUnary(s);
    left = { type: "binary", op: t.text as "*" | "/" | "//" | "%", left, right, pos: t.pos };
    countNode(s);
  }
  return left;
}

function isProductOperator(op: string): boolean {
  return op === "*" || op === "/" || op === "//" || op === "%";
}

function parseUnary(s: ParserState): Node {
  const signs: Array<{ op: "+" | "-"; pos: number }> = [];
  for (let t = peek(s); t.kind === "operator" && (t.text === "+" || t.text === "-"); t = peek(s)) {
    s.next++;
    signs.push({ op: t.text, pos: t.pos });
    countNode(s);
  }
  let node = parsePower(s);
  for (let i = signs.length - 1; i >= 0; i--) {
    node = { type: "unary", op: signs[i].op, operand: node, pos: signs[i].pos };
  }
  return node;
}

function parsePower(s: ParserState): Node {
  const base = parseAtom(s);
  const t = peek(s);
  if (t.kind !== "operator" || (t.text !== "**" && t.text !== "^")) return base;
  s.next++;
  enter(s, t.pos);
  const exponent = parseUnary(s);
  s.depth--;
  countNode(s);
  return { type: "binary", op: "**", left: base, right: exponent, pos: t.pos };
}

function parseAtom(s: ParserState): Node {
  const t = peek(s);
  if (t.kind === "number") {
    s.next++;
    countNode(s);
    return { type: "number", value: t.value, pos: t.pos };
  }
  if (t.kind === "name") {
    s.next++;
    return parseName(s, t.text, t.pos);
  }
  if (t.kind === "punct" && t.text === "(") {
    s.next++;
    enter(s, t.pos);
    const inner = parseSum(s);
    const close = peek(s);
    if (close.kind !== "punct" || close.text !== ")") {
      throw unexpectedToken(s.tokens, s.next, "paren", t.pos);
    }
    s.next++;
    s.depth--;
    return inner;
  }
  if (t.kind === "punct" && t.text === "[") {
    throw new CalcError(
      "unsupported",
      `A list [...]${at(t.pos)} can only be an argument of min, max or sum, e.g. ` +
        "max([1, 2, 3]).",
      t.pos,
    );
  }
  throw missingOperand(s.tokens, s.next);
}

function parseName(s: ParserState, name: string, pos: number): Node {
  if (name === "pi" || name === "e") {
    countNode(s);
    return { type: "constant", name, pos };
  }
  const after = peek(s);
  const fn = FUNCTION_NAMES.find((f) => f === name);
  if (fn) {
    if (after.kind === "punct" && after.text === "(") {
      s.next++;
      return parseCall(s, fn, pos);
    }
    throw new CalcError(
      "syntax",
      `'${name}'${at(pos)} is a function: call it with parentheses, e.g. ${example(fn)}.`,
      pos,
    );
  }
  if (after.kind === "punct" && after.text === ".") {
    throw attributeError(s.tokens, s.next, name, pos);
  }
  const lower = name.toLowerCase();
  if (after.kind === "punct" && after.text === "(") {
    const known = FUNCTION_NAMES.find((f) => f === lower);
    const hint = known
      ? `did you mean ${known}? `
      : FUNCTION_HINTS.has(lower)
      ? `${FUNCTION_HINTS.get(lower)}; `
      : "";
    throw new CalcError(
      "unsupported",
      `Function '${name}'${at(pos)} is not supported: ${hint}the only functions are ` +
        `${FUNCTION_LIST}. ${ALLOWED_SUMMARY}`,
      pos,
    );
  }
  const hint = lower === "pi" || lower === "e" ? ` Did you mean ${lower}?` : "";
  throw new CalcError(
    "unsupported",
    `Unknown name '${name}'${at(pos)}: the calculator has no variables; the only names are ` +
      `pi and e, so put the number itself in the expression.${hint} ${ALLOWED_SUMMARY}`,
    pos,
  );
}

function parseCall(s: ParserState, name: FunctionName, pos: number): Node {
  enter(s, pos);
  countNode(s);
  const args: Node[] = [];
  for (;;) {
    const t = peek(s);
    if (t.kind === "punct" && t.text === ")") break;
    const listed = t.kind === "punct" && t.text === "[";
    if (listed && (name === "round" || name === "abs")) {
      throw new CalcError(
        "unsupported",
        `${name}()${at(pos)} does not take a list; lists [...] are only for min, max and sum.`,
        t.pos,
      );
    }
    args.push(listed ? parseList(s, t.pos) : parseSum(s));
    const after = peek(s);
    if (after.kind === "punct" && after.text === ",") {
      s.next++;
    } else if (!(after.kind === "punct" && after.text === ")")) {
      if (listed && after.kind === "operator") {
        throw new CalcError(
          "unsupported",
          `A list cannot be used in arithmetic (${after.text}${at(after.pos)}); pass it whole ` +
            `to ${name}, e.g. ${name}([1, 2, 3]).`,
          after.pos,
        );
      }
      throw unexpectedToken(s.tokens, s.next, "call", pos);
    }
  }
  s.next++; // the ")"
  s.depth--;
  checkArity(name, args, pos);
  return { type: "call", name, args, pos };
}

function parseList(s: ParserState, pos: number): Node {
  s.next++; // the "["
  enter(s, pos);
  countNode(s);
  const items: Node[] = [];
  for (;;) {
    const t = peek(s);
    if (t.kind === "punct" && t.text === "]") break;
    if (t.kind === "punct" && t.text === "[") {
      throw new CalcError(
        "unsupported",
        `Nested lists${at(t.pos)} are not supported: write one flat list, e.g. sum([1, 2, 3]).`,
        t.pos,
      );
    }
    items.push(parseSum(s));
    const after = peek(s);
    if (after.kind === "punct" && after.text === ",") {
      s.next++;
    } else if (!(after.kind === "punct" && after.text === "]")) {
      throw unexpectedToken(s.tokens, s.next, "list", pos);
    }
  }
  s.next++; // the "]"
  s.depth--;
  return { type: "list", items, pos };
}

function checkArity(name: FunctionName, args: Node[], pos: number): void {
  const values = args.reduce((n, a) => n + (a.type === "list" ? a.items.length : 1), 0);
  let problem: string | undefined;
  if (name === "round" && (args.length < 1 || args.length > 2)) {
    problem = "takes 1 or 2 arguments: round(x) or round(x, digits)";
  } else if (name === "abs" && args.length !== 1) {
    problem = "takes exactly 1 argument: abs(x)";
  } else if ((name === "min" || name === "max") && values === 0) {
    problem = `needs at least one number: ${name}(a, b, ...) or ${name}([a, b, ...])`;
  } else if (name === "sum" && args.length === 0) {
    problem = "needs at least one argument: sum(a, b, ...) or sum([a, b, ...])";
  }
  if (problem) {
    throw new CalcError(
      "syntax",
      `${name}()${at(pos)} ${problem}; got ${args.length} argument${args.length === 1 ? "" : "s"}.`,
      pos,
    );
  }
}

function example(fn: FunctionName): string {
  return fn === "round" ? "round(2.675, 2)" : fn === "abs" ? "abs(-3)" : `${fn}(1, 2, 3)`;
}

function peek(s: ParserState): Token {
  return s.tokens[s.next];
}

function countNode(s: ParserState): void {
  s.nodes++;
  if (s.nodes > MAX_NODES) {
    throw new CalcError(
      "limit",
      `The expression has more than ${MAX_NODES} syntax nodes (numbers, operators, signs and ` +
        "calls); split the calculation into several calls.",
    );
  }
}

function enter(s: ParserState, pos: number): void {
  s.depth++;
  if (s.depth > MAX_DEPTH) {
    throw new CalcError(
      "limit",
      `The expression is nested more than ${MAX_DEPTH} levels deep${at(pos)} (parentheses, ` +
        "brackets, calls and ** exponents count); simplify it or split it into several calls.",
      pos,
    );
  }
}
