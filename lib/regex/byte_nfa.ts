/**
 * The byte-level Thompson NFA of the grep line automaton: its node layout
 * ({@link ByteNfa}), the pattern tree it is compiled from ({@link Ast}, made
 * by re2_automaton.ts) and the compiler ({@link buildNfa}). Sets of code
 * points become UTF-8 byte sequences; counted repetitions are expanded.
 *
 * @module
 */

import { type CodeSet, highCount } from "./code_set.ts";

/** Most NFA nodes (counted repetitions are expanded); past it, no automaton. */
export const MAX_NODES = 10_000;
/** Non-ASCII members of a set compiled as exact UTF-8 sequences; more become "any non-ASCII". */
const MAX_EXACT_POINTS = 16;

/** Node kinds of {@link ByteNfa}. */
export enum NodeKind {
  /** Consumes one byte of `byteSets[arg]`, then `out`. */
  Byte = 0,
  /** Continues at both `out` and `out2`. */
  Split = 1,
  /** Continues at `out` when assertion `arg` holds (see {@link Assertion}). */
  Assert = 2,
  /** A match ends here. */
  Match = 3,
}

/** Zero-width assertions, in line mode. */
export enum Assertion {
  LineStart = 0,
  LineEnd = 1,
  WordBoundary = 2,
  NotWordBoundary = 3,
}

/** A Thompson NFA over the bytes of one line (UTF-8, never `\n`). */
export interface ByteNfa {
  kind: Uint8Array;
  out: Int32Array;
  out2: Int32Array;
  /** Byte set index of a Byte node, assertion of an Assert node. */
  arg: Int32Array;
  /** `byteSets[i][b]` is 1 when byte b is in set i. */
  byteSets: Uint8Array[];
  /** Number of nodes. */
  size: number;
  start: number;
}

/** A parsed pattern: what {@link buildNfa} compiles. */
export type Ast =
  | { type: "set"; set: CodeSet }
  | { type: "cat"; items: Ast[] }
  | { type: "alt"; items: Ast[] }
  | { type: "repeat"; item: Ast; min: number; max: number }
  | { type: "assert"; assertion: Assertion };

/** Too many nodes: no automaton. */
class TooLarge extends Error {}

/** Compiles `ast` into a {@link ByteNfa}, or null past {@link MAX_NODES} nodes. */
export function buildNfa(ast: Ast): ByteNfa | null {
  try {
    return new Builder().build(ast);
  } catch (error) {
    if (error instanceof TooLarge) return null;
    throw error;
  }
}

/** Compiles the AST into a {@link ByteNfa}, back to front (each piece knows where it continues). */
class Builder {
  #kind: number[] = [];
  #out: number[] = [];
  #out2: number[] = [];
  #arg: number[] = [];
  #byteSets: Uint8Array[] = [];
  readonly #setIndex = new Map<string, number>();

  build(ast: Ast): ByteNfa {
    const match = this.#node(NodeKind.Match, -1, -1, 0);
    const start = this.#compile(ast, match);
    return {
      kind: Uint8Array.from(this.#kind),
      out: Int32Array.from(this.#out),
      out2: Int32Array.from(this.#out2),
      arg: Int32Array.from(this.#arg),
      byteSets: this.#byteSets,
      size: this.#kind.length,
      start,
    };
  }

  #node(kind: NodeKind, out: number, out2: number, arg: number): number {
    if (this.#kind.length >= MAX_NODES) throw new TooLarge();
    this.#kind.push(kind);
    this.#out.push(out);
    this.#out2.push(out2);
    this.#arg.push(arg);
    return this.#kind.length - 1;
  }

  #split(a: number, b: number): number {
    return this.#node(NodeKind.Split, a, b, 0);
  }

  #compile(ast: Ast, next: number): number {
    switch (ast.type) {
      case "set":
        return this.#compileSet(ast.set, next);
      case "assert":
        return this.#node(NodeKind.Assert, next, -1, ast.assertion);
      case "cat": {
        let at = next;
        for (let i = ast.items.length - 1; i >= 0; i--) at = this.#compile(ast.items[i], at);
        return at;
      }
      case "alt": {
        let at = this.#compile(ast.items[ast.items.length - 1], next);
        for (let i = ast.items.length - 2; i >= 0; i--) {
          at = this.#split(this.#compile(ast.items[i], next), at);
        }
        return at;
      }
      case "repeat": {
        let at = next;
        if (ast.max === Infinity) {
          const loop = this.#split(-1, next);
          this.#out[loop] = this.#compile(ast.item, loop);
          at = loop;
        } else {
          for (let i = ast.min; i < ast.max; i++) {
            at = this.#split(this.#compile(ast.item, at), next);
          }
        }
        for (let i = 0; i < ast.min; i++) at = this.#compile(ast.item, at);
        return at;
      }
    }
  }

  /** One character of `set`: an ASCII byte, or the UTF-8 bytes of a non-ASCII member. */
  #compileSet(set: CodeSet, next: number): number {
    const branches: number[] = [];
    const ascii = new Uint8Array(256);
    ascii.set(set.ascii);
    ascii[10] = 0; // a line never holds "\n"
    if (ascii.includes(1) || set.high.length === 0) {
      branches.push(this.#node(NodeKind.Byte, next, -1, this.#bytes(ascii)));
    }
    if (set.high.length > 0 && highCount(set) <= MAX_EXACT_POINTS) {
      for (const [from, to] of set.high) {
        for (let code = from; code <= to; code++) branches.push(this.#sequence(code, next));
      }
    } else if (set.high.length > 0) {
      // Any non-ASCII character: a byte >= 0x80 and the continuation bytes after it.
      const loop = this.#split(-1, next);
      this.#out[loop] = this.#node(NodeKind.Byte, loop, -1, this.#bytes(byteRange(0x80, 0xbf)));
      branches.push(this.#node(NodeKind.Byte, loop, -1, this.#bytes(byteRange(0x80, 0xff))));
    }
    let at = branches[branches.length - 1];
    for (let i = branches.length - 2; i >= 0; i--) at = this.#split(branches[i], at);
    return at;
  }

  #sequence(code: number, next: number): number {
    const bytes = new TextEncoder().encode(String.fromCodePoint(code));
    let at = next;
    for (let i = bytes.length - 1; i >= 0; i--) {
      at = this.#node(NodeKind.Byte, at, -1, this.#bytes(byteRange(bytes[i], bytes[i])));
    }
    return at;
  }

  #bytes(members: Uint8Array): number {
    const key = members.join("");
    let index = this.#setIndex.get(key);
    if (index === undefined) {
      index = this.#byteSets.length;
      this.#byteSets.push(members);
      this.#setIndex.set(key, index);
    }
    return index;
  }
}

function byteRange(from: number, to: number): Uint8Array {
  const members = new Uint8Array(256);
  members.fill(1, from, to + 1);
  return members;
}
