/**
 * Walks a syntax tree and computes its value. Recursion depth is bounded by
 * the parser's node limit, and every operation checks sizes, so evaluation
 * is bounded in time and memory.
 *
 * @module
 */

import { arithmetic } from "./arithmetic.ts";
import type { Node } from "./ast.ts";
import { callFunction } from "./functions.ts";
import { power } from "./power.ts";
import { negate } from "./rational.ts";
import type { Value } from "./value.ts";

/** A computed value and why it is approximate (empty when exact). */
export interface Evaluation {
  value: Value;
  /** E.g. "pi", "e", "a non-integer power"; in order of first use. */
  approximateBecause: string[];
}

/**
 * The value of `node`.
 * @throws {CalcError} for math errors (division by zero, ...) and size limits.
 */
export function evaluate(node: Node): Evaluation {
  const reasons = new Set<string>();
  const value = evaluateNode(node, reasons);
  return { value, approximateBecause: [...reasons] };
}

function evaluateNode(node: Node, reasons: Set<string>): Value {
  switch (node.type) {
    case "number":
      return { kind: "exact", q: node.value };
    case "constant":
      reasons.add(node.name);
      return { kind: "float", x: node.name === "pi" ? Math.PI : Math.E };
    case "unary": {
      const operand = evaluateNode(node.operand, reasons);
      if (node.op === "+") return operand;
      return operand.kind === "exact"
        ? { kind: "exact", q: negate(operand.q) }
        : { kind: "float", x: -operand.x };
    }
    case "binary": {
      const left = evaluateNode(node.left, reasons);
      const right = evaluateNode(node.right, reasons);
      return node.op === "**"
        ? power(left, right, node.pos, reasons)
        : arithmetic(node.op, left, right, node.pos);
    }
    case "call": {
      const args: Value[] = [];
      for (const arg of node.args) {
        if (arg.type === "list") {
          for (const item of arg.items) args.push(evaluateNode(item, reasons));
        } else {
          args.push(evaluateNode(arg, reasons));
        }
      }
      return callFunction(node.name, args, node.pos);
    }
    case "list":
      // The parser only builds lists as call arguments, which the call case spreads.
      throw new TypeError("a list outside a function call reached the evaluator");
  }
}
