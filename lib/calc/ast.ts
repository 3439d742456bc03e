/**
 * The syntax tree the parser builds and the evaluator walks. Every node
 * keeps the 0-based offset of its token, for error messages.
 *
 * @module
 */

import type { Rational } from "./rational.ts";

/** Binary operators after parsing (`^` is already folded into `**`). */
export type BinaryOperator = "+" | "-" | "*" | "/" | "//" | "%" | "**";

/** The functions the calculator knows. */
export type FunctionName = "round" | "min" | "max" | "sum" | "abs";

/** The functions the calculator knows, in the order messages list them. */
export const FUNCTION_NAMES: readonly FunctionName[] = ["round", "min", "max", "sum", "abs"];

/** The named constants (floating point, so results using them are approximate). */
export type ConstantName = "pi" | "e";

/** One node of an expression. Lists only occur as arguments of min, max and sum. */
export type Node =
  | { type: "number"; value: Rational; pos: number }
  | { type: "constant"; name: ConstantName; pos: number }
  | { type: "unary"; op: "+" | "-"; operand: Node; pos: number }
  | { type: "binary"; op: BinaryOperator; left: Node; right: Node; pos: number }
  | { type: "call"; name: FunctionName; args: Node[]; pos: number }
  | { type: "list"; items: Node[]; pos: number };
