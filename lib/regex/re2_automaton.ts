/**
 * An RE2 pattern as a byte-level automaton that over-approximates it, for
 * the line prefilter of regex scans (line_dfa.ts): {@link lineAutomaton}
 * reads the pattern (without the engine) and builds (byte_nfa.ts) a Thompson NFA over
 * UTF-8 bytes that accepts every line RE2 would match, and maybe some more.
 * The scan then runs RE2 only on the lines the automaton accepts, so results
 * stay RE2's own; the automaton only has to be *sound* (never reject a line
 * RE2 matches), not exact.
 *
 * Modelled exactly: literals, `.`, classes with ranges and negation, POSIX
 * classes, `\d \w \s` and their negations, `\x..`, `\Q...\E`, groups of every
 * RE2 kind, alternation, `* + ? {n,m}` (lazy or not: the same lines match),
 * `^ $ \A \z` as line start and end (corpus_grep's line mode), `\b \B` (ASCII
 * word boundaries, as RE2's), and the flags `i m s U`. Case folding is
 * RE2's: `k` also matches the Kelvin sign and `s` the long s. Over-
 * approximated (sound, less selective): non-ASCII characters other than a
 * few named code points, which become "a non-ASCII byte and its continuation
 * bytes", and `\p{...}`, which becomes any character. Syntax it does not
 * follow (octal escapes, anything odd) makes it answer null: the caller then
 * scans with RE2 alone, as without the prefilter.
 *
 * @module
 */

import {
  addRange,
  addSet,
  anySet,
  asciiSet,
  type CodeSet,
  emptySet,
  foldCase,
  negate,
  pointSet,
} from "./code_set.ts";
import { Assertion, type Ast, buildNfa, type ByteNfa } from "./byte_nfa.ts";
import { hexEscape } from "./re2_syntax.ts";

export { MAX_NODES } from "./byte_nfa.ts";
export type { ByteNfa } from "./byte_nfa.ts";
/** The pattern is outside what this file models: no automaton. */
class GiveUp extends Error {}

/**
 * The automaton of an RE2-syntax pattern (after `toRe2Syntax`), matched
 * against single lines, or null when the pattern uses syntax this file does
 * not follow or expands past {@link MAX_NODES}. The pattern must already
 * have compiled in RE2 (this parser trusts its syntax where RE2 would refuse).
 */
export function lineAutomaton(pattern: string, caseSensitive: boolean): ByteNfa | null {
  try {
    return buildNfa(new Parser(pattern, !caseSensitive).parse());
  } catch (error) {
    if (error instanceof GiveUp) return null;
    throw error;
  }
}

const DIGIT = asciiSet("09");
const WORD = asciiSet("09AZaz__");
const SPACE = asciiSet("\t\n\f\f\r\r  ");
const POSIX = new Map<string, CodeSet>([
  ["alnum", asciiSet("09AZaz")],
  ["alpha", asciiSet("AZaz")],
  ["ascii", asciiSet("\x00\x7f")],
  ["blank", asciiSet("\t\t  ")],
  ["cntrl", asciiSet("\x00\x1f\x7f\x7f")],
  ["digit", DIGIT],
  ["graph", asciiSet("!~")],
  ["lower", asciiSet("az")],
  ["print", asciiSet(" ~")],
  ["punct", asciiSet("!/:@[`{~")],
  ["space", asciiSet("\t\r  ")],
  ["upper", asciiSet("AZ")],
  ["word", WORD],
  ["xdigit", asciiSet("09AFaf")],
]);
const CONTROL = new Map([["a", 7], ["f", 12], ["t", 9], ["n", 10], ["r", 13], ["v", 11]]);

/** One class item: its set, and whether RE2's negation of a class holding it is known exactly. */
interface ClassItem {
  set: CodeSet;
  /** A literal or a range (folded exactly); Perl and POSIX classes are not (see code_set.ts). */
  plain: boolean;
}

class Parser {
  readonly #p: string;
  #at = 0;
  readonly #foldAtStart: boolean;

  constructor(pattern: string, fold: boolean) {
    this.#p = pattern;
    this.#foldAtStart = fold;
  }

  parse(): Ast {
    const ast = this.#alternation({ fold: this.#foldAtStart });
    if (this.#at < this.#p.length) throw new GiveUp();
    return ast;
  }

  /** `flags` is the enclosing group's: `(?i)` changes it for the rest of the group. */
  #alternation(flags: { fold: boolean }): Ast {
    const items = [this.#concatenation(flags)];
    while (this.#p[this.#at] === "|") {
      this.#at++;
      items.push(this.#concatenation(flags));
    }
    return items.length === 1 ? items[0] : { type: "alt", items };
  }

  #concatenation(flags: { fold: boolean }): Ast {
    const items: Ast[] = [];
    while (this.#at < this.#p.length) {
      const c = this.#p[this.#at];
      if (c === "|" || c === ")") break;
      if (this.#p.startsWith("(?", this.#at) && this.#flagsOnly(flags)) continue;
      if (this.#p.startsWith("\\Q", this.#at)) {
        // A quantifier after `\Q...\E` repeats its last character only.
        const quoted = this.#quoted(flags.fold);
        const last = quoted.pop()!;
        items.push(...quoted, this.#repeat(last));
        continue;
      }
      items.push(this.#repeat(this.#atom(flags)));
    }
    return items.length === 1 ? items[0] : { type: "cat", items };
  }

  /** Reads `(?flags)` if it stands at the cursor, applying it to `flags`. */
  #flagsOnly(flags: { fold: boolean }): boolean {
    const m = /^\(\?([imsU]*)(?:-([imsU]*))?\)/.exec(this.#p.slice(this.#at, this.#at + 16));
    if (!m) return false;
    this.#at += m[0].length;
    if (m[1].includes("i")) flags.fold = true;
    if (m[2]?.includes("i")) flags.fold = false;
    return true;
  }

  #repeat(atom: Ast): Ast {
    let ast = atom;
    while (this.#at < this.#p.length) {
      const c = this.#p[this.#at];
      let min: number;
      let max: number;
      if (c === "*" || c === "+" || c === "?") {
        this.#at++;
        [min, max] = c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
      } else if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.#p.slice(this.#at, this.#at + 16));
        if (!m) return ast; // RE2 reads such a brace as a literal; the next atom takes it.
        this.#at += m[0].length;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
        if (min > 1000 || max !== Infinity && (max > 1000 || max < min)) throw new GiveUp();
      } else {
        return ast;
      }
      if (this.#p[this.#at] === "?") this.#at++; // lazy: the same lines match
      ast = { type: "repeat", item: ast, min, max };
    }
    return ast;
  }

  #atom(flags: { fold: boolean }): Ast {
    const p = this.#p;
    const c = p[this.#at];
    if (c === "(") return this.#group(flags);
    if (c === "[") return { type: "set", set: this.#characterClass(flags.fold) };
    if (c === "\\") return this.#escape(flags.fold);
    if (c === "*" || c === "+" || c === "?" || c === ")") throw new GiveUp();
    this.#at++;
    if (c === ".") return this.#set(negate(pointSet(10), true), false);
    if (c === "^") return { type: "assert", assertion: Assertion.LineStart };
    if (c === "$") return { type: "assert", assertion: Assertion.LineEnd };
    this.#at--;
    return this.#set(pointSet(this.#codePoint()), flags.fold);
  }

  #group(outer: { fold: boolean }): Ast {
    const p = this.#p;
    this.#at++;
    const flags = { fold: outer.fold };
    if (p[this.#at] === "?") {
      const named = /^\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(p.slice(this.#at, this.#at + 40));
      const scoped = /^\?([imsU]*)(?:-([imsU]*))?:/.exec(p.slice(this.#at, this.#at + 16));
      if (named) {
        this.#at += named[0].length;
      } else if (scoped) {
        this.#at += scoped[0].length;
        if (scoped[1].includes("i")) flags.fold = true;
        if (scoped[2]?.includes("i")) flags.fold = false;
      } else {
        throw new GiveUp();
      }
    }
    const inner = this.#alternation(flags);
    if (p[this.#at] !== ")") throw new GiveUp();
    this.#at++;
    return inner;
  }

  #set(set: CodeSet, fold: boolean): Ast {
    return { type: "set", set: fold ? foldCase(set) : set };
  }

  #escape(fold: boolean): Ast {
    const p = this.#p;
    const next = p[this.#at + 1];
    if (next === "b" || next === "B" || next === "A" || next === "z") {
      this.#at += 2;
      const assertion = next === "b"
        ? Assertion.WordBoundary
        : next === "B"
        ? Assertion.NotWordBoundary
        : next === "A"
        ? Assertion.LineStart
        : Assertion.LineEnd;
      return { type: "assert", assertion };
    }
    return this.#set(this.#escapeSet().set, fold);
  }

  /** `\Q...\E` (or to the end): one set per character; never empty. */
  #quoted(fold: boolean): Ast[] {
    const p = this.#p;
    this.#at += 2;
    const end = p.indexOf("\\E", this.#at);
    const stop = end < 0 ? p.length : end;
    const items: Ast[] = [];
    while (this.#at < stop) items.push(this.#set(pointSet(this.#codePoint()), fold));
    this.#at = end < 0 ? p.length : end + 2;
    if (items.length === 0) throw new GiveUp();
    return items;
  }

  /** An escape that stands for characters (inside or outside a class). */
  #escapeSet(): ClassItem {
    const p = this.#p;
    const next = p[this.#at + 1];
    if (next === undefined) throw new GiveUp();
    this.#at += 2;
    const perl = next === "d" ? DIGIT : next === "w" ? WORD : next === "s" ? SPACE : undefined;
    if (perl) return { set: perl, plain: false };
    const negated = next === "D" ? DIGIT : next === "W" ? WORD : next === "S" ? SPACE : undefined;
    if (negated) return { set: negate(negated, true), plain: false };
    if (next === "p" || next === "P") {
      // A Unicode class: not modelled, any character (its negation too).
      const braced = /^\{\^?[A-Za-z_]+\}/.exec(p.slice(this.#at, this.#at + 40));
      if (braced) this.#at += braced[0].length;
      else if (/[A-Za-z]/.test(p[this.#at] ?? "")) this.#at++;
      else throw new GiveUp();
      return { set: anySet(), plain: false };
    }
    if (next === "x") {
      const hex = hexEscape(p, this.#at);
      if (!hex) throw new GiveUp();
      this.#at += hex.length;
      return { set: pointSet(hex.code), plain: true };
    }
    const control = CONTROL.get(next);
    if (control !== undefined) return { set: pointSet(control), plain: true };
    if (/[0-9A-Za-z]/.test(next)) throw new GiveUp(); // octal, or an escape not modelled
    this.#at--;
    return { set: pointSet(this.#codePoint()), plain: true };
  }

  /** `[...]`: the set, case-folded when `fold` (negation after folding, as RE2 does). */
  #characterClass(fold: boolean): CodeSet {
    const p = this.#p;
    this.#at++;
    const negated = p[this.#at] === "^";
    if (negated) this.#at++;
    const set = emptySet();
    let plain = true;
    let first = true;
    while (true) {
      if (this.#at >= p.length) throw new GiveUp();
      if (p[this.#at] === "]" && !first) {
        this.#at++;
        break;
      }
      first = false;
      const item = this.#classItem();
      addSet(set, item.set);
      plain &&= item.plain;
    }
    const folded = fold ? foldCase(set) : set;
    // Folding of Perl and POSIX classes inside a negated class is not modelled exactly.
    return negated ? negate(folded, plain || !fold) : folded;
  }

  #classItem(): ClassItem {
    const p = this.#p;
    if (p.startsWith("[:", this.#at)) {
      const m = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(this.#at, this.#at + 12));
      const posix = m ? POSIX.get(m[2]) : undefined;
      if (m && posix) {
        this.#at += m[0].length;
        return { set: m[1] ? negate(posix, true) : posix, plain: false };
      }
    }
    let from: number;
    if (p[this.#at] === "\\") {
      const item = this.#escapeSet();
      if (!item.plain) return item;
      from = singlePoint(item.set);
    } else {
      from = this.#codePoint();
    }
    if (p[this.#at] === "-" && p[this.#at + 1] !== "]" && this.#at + 1 < p.length) {
      this.#at++;
      let to: number;
      if (p[this.#at] === "\\") {
        const item = this.#escapeSet();
        if (!item.plain) throw new GiveUp();
        to = singlePoint(item.set);
      } else {
        to = this.#codePoint();
      }
      if (to < from) throw new GiveUp();
      const set = emptySet();
      addRange(set, from, to);
      return { set, plain: true };
    }
    return { set: pointSet(from), plain: true };
  }

  #codePoint(): number {
    const code = this.#p.codePointAt(this.#at);
    if (code === undefined) throw new GiveUp();
    this.#at += code > 0xffff ? 2 : 1;
    return code;
  }
}

/** The one code point of a set made by `pointSet`. */
function singlePoint(set: CodeSet): number {
  for (let c = 0; c < 128; c++) if (set.ascii[c]) return c;
  return set.high[0][0];
}
