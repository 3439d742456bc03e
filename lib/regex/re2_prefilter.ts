/**
 * The literal prefilter of regex scans: {@link requiredLiterals} reads an RE2
 * pattern (without the engine) and finds text that every match must contain,
 * so a scan can look for that text with `indexOf` and run the engine only on
 * the lines that hold it.
 *
 * The analysis is a small recursive-descent parser over the pattern that
 * tracks, for each piece, the exact strings it can match (when few) and the
 * strings any match must contain. It models literals, `\d`, control escapes,
 * `\Q...\E`, small character classes, groups, alternation and repetition. A
 * piece it does not model (`.`, `\w`, a large class) is taken to match
 * anything, and syntax it cannot follow (inline flags, odd braces) makes it
 * answer "nothing known": it never guesses.
 *
 * @module
 */

import { hexEscape } from "./re2_syntax.ts";

/** Most strings in one alternative set of {@link requiredLiterals}. */
const MAX_SET = 16;
/** Most characters a character class may hold to count as a set of literals. */
const MAX_CLASS = 10;

/** What a piece of pattern is known to match (an "any" piece knows nothing). */
interface Info {
  /** The piece matches exactly one of these strings; null when unknown or too many. */
  exact: Set<string> | null;
  /** Every match of the piece contains a string of each of these sets. */
  required: Set<string>[];
  /** When exact is null: every match starts with one of these (e.g. `ab+` starts with "ab"). */
  first?: Set<string>;
  /** When exact is null: every match ends with one of these. */
  last?: Set<string>;
}

/** The pattern is outside what the analysis understands: give up, never guess. */
class GiveUp extends Error {}

const ANY: Info = { exact: null, required: [] };
const EMPTY: Info = { exact: new Set([""]), required: [] };

/**
 * Text that every match of an RE2 pattern contains: a list of sets, where a
 * matching line contains at least one string of every set. Strings are
 * lower-case ASCII, to be looked for in the lower-cased line (with
 * `caseSensitive` too: a case-sensitive match is also a match of the lower
 * case). Returns null when nothing useful is known or when the pattern uses
 * syntax the analysis does not model (inline flags, odd braces), so a caller
 * can always fall back to running the engine on everything.
 *
 * Sound by construction: a set is only ever required when every match must
 * contain one of its strings. Letters whose case folding reaches outside
 * ASCII in a way lower-casing cannot follow (`s` and `ſ`) and non-ASCII
 * characters are treated as unknown.
 */
export function requiredLiterals(pattern: string, caseSensitive: boolean): string[][] | null {
  let info: Info;
  try {
    const parser = new LiteralParser(pattern, caseSensitive);
    info = parser.parse();
  } catch (error) {
    if (error instanceof GiveUp) return null;
    throw error;
  }
  const sets = [...info.required];
  if (useful(info.exact)) sets.push(info.exact!);
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const set of sets) {
    const members = minimal([...set]);
    const key = members.join("\u0000");
    if (!seen.has(key)) {
      seen.add(key);
      out.push(members);
    }
  }
  // A set is implied by another whose every string contains one of its strings ("ka5" needs "5").
  const kept = out.filter((set, i) =>
    !out.some((other, j) => j !== i && implies(other, set) && (!implies(set, other) || j < i))
  );
  return kept.length === 0 ? null : kept;
}

/** Containing a string of `a` means containing a string of `b`. */
function implies(a: readonly string[], b: readonly string[]): boolean {
  return a.every((x) => b.some((y) => x.includes(y)));
}

/** Drops strings that contain another member: "contains one of" does not need them. */
function minimal(members: string[]): string[] {
  const sorted = [...new Set(members)].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  const kept: string[] = [];
  for (const m of sorted) if (!kept.some((k) => m.includes(k))) kept.push(m);
  return kept;
}

/** A set requires something only when none of its strings is empty. */
function useful(set: Set<string> | null): boolean {
  if (set === null || set.size === 0) return false;
  for (const s of set) if (s === "") return false;
  return true;
}

/** The most selective of some sets: longest shortest member, then fewest members. */
function best(sets: Set<string>[]): Set<string> | null {
  let chosen: Set<string> | null = null;
  let score = -1;
  for (const set of sets) {
    const shortest = Math.min(...[...set].map((s) => s.length));
    const value = shortest * 100 - set.size;
    if (value > score) {
      chosen = set;
      score = value;
    }
  }
  return chosen;
}

function candidates(info: Info): Set<string>[] {
  return useful(info.exact) ? [...info.required, info.exact!] : info.required;
}

/** Every string of `a` followed by every string of `b`. */
function product(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return out;
}

class LiteralParser {
  #at = 0;
  readonly #pattern: string;
  readonly #caseSensitive: boolean;

  constructor(pattern: string, caseSensitive: boolean) {
    this.#pattern = pattern;
    this.#caseSensitive = caseSensitive;
  }

  parse(): Info {
    const info = this.#alternation();
    if (this.#at < this.#pattern.length) throw new GiveUp();
    return info;
  }

  #alternation(): Info {
    const branches = [this.#concatenation()];
    while (this.#pattern[this.#at] === "|") {
      this.#at++;
      branches.push(this.#concatenation());
    }
    if (branches.length === 1) return branches[0];
    if (branches.every((b) => b.exact !== null)) {
      const union = new Set<string>();
      for (const b of branches) for (const s of b.exact!) union.add(s);
      if (union.size <= MAX_SET) return { exact: union, required: [] };
    }
    // Each branch contributes its most selective set; the union is required.
    const union = new Set<string>();
    for (const b of branches) {
      const set = best(candidates(b));
      if (set === null) return ANY;
      for (const s of set) union.add(s);
    }
    return union.size <= MAX_SET ? { exact: null, required: [union] } : ANY;
  }

  #concatenation(): Info {
    const required: Set<string>[] = [];
    let run: Set<string> | null = new Set([""]);
    let exact = true;
    const flush = () => {
      if (useful(run)) required.push(run!);
    };
    while (this.#at < this.#pattern.length) {
      const c = this.#pattern[this.#at];
      if (c === "|" || c === ")") break;
      const piece = this.#repeat();
      required.push(...piece.required);
      if (piece.exact === null) {
        // Known ends still join the text around them: `ka\d+` needs "ka" and a digit together.
        if (piece.first && run!.size * piece.first.size <= MAX_SET) {
          run = product(run!, piece.first);
        }
        flush();
        run = piece.last ?? new Set([""]);
        exact = false;
        continue;
      }
      if (run!.size * piece.exact.size > MAX_SET) {
        flush();
        run = piece.exact;
        exact = false;
        continue;
      }
      run = product(run!, piece.exact);
    }
    if (exact) return { exact: run, required };
    flush();
    return { exact: null, required };
  }

  #repeat(): Info {
    let info = this.#atom();
    while (true) {
      const c = this.#pattern[this.#at];
      let min: number;
      if (c === "*" || c === "?") {
        min = 0;
        this.#at++;
      } else if (c === "+") {
        min = 1;
        this.#at++;
      } else if (c === "{") {
        const braces = /^\{(\d+)(,\d*)?\}/.exec(this.#pattern.slice(this.#at));
        if (!braces) throw new GiveUp();
        min = Number(braces[1]);
        this.#at += braces[0].length;
      } else {
        return info;
      }
      if (this.#pattern[this.#at] === "?") this.#at++;
      if (min === 0) {
        info = c === "?" && info.exact !== null && info.exact.size < MAX_SET
          ? { exact: new Set([...info.exact, ""]), required: [] }
          : ANY;
      } else {
        const ends = info.exact ?? undefined;
        info = { exact: null, required: candidates(info), first: ends, last: ends };
      }
    }
  }

  #atom(): Info {
    const p = this.#pattern;
    const c = p[this.#at];
    if (c === "(") {
      this.#at++;
      if (p[this.#at] === "?") {
        if (p.startsWith("?:", this.#at)) this.#at += 2;
        else if (p.startsWith("?P<", this.#at)) {
          const close = p.indexOf(">", this.#at);
          if (close < 0) throw new GiveUp();
          this.#at = close + 1;
        } else throw new GiveUp(); // inline flags change how the rest matches
      }
      const inner = this.#alternation();
      if (p[this.#at] !== ")") throw new GiveUp();
      this.#at++;
      return inner;
    }
    if (c === "[") return this.#characterClass();
    if (c === "\\") return this.#escape();
    this.#at++;
    if (c === ".") return ANY;
    if (c === "^" || c === "$") return EMPTY;
    if (c === "*" || c === "+" || c === "?" || c === "{" || c === ")") throw new GiveUp();
    return this.#literal(c);
  }

  #escape(): Info {
    const p = this.#pattern;
    const next = p[this.#at + 1];
    if (next === undefined) throw new GiveUp();
    this.#at += 2;
    if (next === "Q") {
      const end = p.indexOf("\\E", this.#at);
      const text = p.slice(this.#at, end < 0 ? p.length : end);
      this.#at = end < 0 ? p.length : end + 2;
      let info: Info = EMPTY;
      for (const ch of text) {
        const lit = this.#literal(ch);
        if (lit.exact === null) return ANY;
        info = { exact: new Set([[...info.exact!][0] + [...lit.exact][0]]), required: [] };
      }
      return info;
    }
    if (next === "d") return { exact: new Set("0123456789"), required: [] };
    if (next === "b" || next === "B" || next === "A" || next === "z") return EMPTY;
    if (next === "x") {
      // `\x41` and `\x{41}` are one character; its digits are not text to look for.
      const hex = hexEscape(p, this.#at);
      if (!hex) throw new GiveUp();
      this.#at += hex.length;
      return this.#literal(String.fromCodePoint(hex.code));
    }
    if (next === "p" || next === "P") {
      // A Unicode class, `\pL` or `\p{Greek}`: any character, and its name is not text either.
      if (p[this.#at] === "{") {
        const close = p.indexOf("}", this.#at);
        if (close < 0) throw new GiveUp();
        this.#at = close + 1;
      } else {
        this.#at++;
      }
      return ANY;
    }
    const control = CONTROL_ESCAPES.get(next);
    if (control !== undefined) return this.#literal(control);
    if (/[A-Za-z0-9]/.test(next)) return ANY; // \w \s \pL \x41 \0 ...: not modelled
    return this.#literal(next);
  }

  #characterClass(): Info {
    const p = this.#pattern;
    this.#at++;
    const negated = p[this.#at] === "^";
    if (negated) this.#at++;
    const members = new Set<string>();
    let known = !negated;
    let first = true;
    while (true) {
      if (this.#at >= p.length) throw new GiveUp();
      let c = p[this.#at];
      if (c === "]" && !first) {
        this.#at++;
        break;
      }
      first = false;
      if (c === "[" && p[this.#at + 1] === ":") {
        const end = p.indexOf(":]", this.#at + 2);
        if (end < 0) throw new GiveUp();
        this.#at = end + 2;
        known = false;
        continue;
      }
      if (c === "\\") {
        const next = p[this.#at + 1];
        if (next === undefined) throw new GiveUp();
        this.#at += 2;
        if (next === "d") {
          for (const d of "0123456789") members.add(d);
          continue;
        }
        const control = CONTROL_ESCAPES.get(next);
        if (control !== undefined) c = control;
        else if (/[A-Za-z0-9]/.test(next)) {
          known = false;
          continue;
        } else c = next;
      } else {
        this.#at++;
      }
      if (p[this.#at] === "-" && p[this.#at + 1] !== "]" && p[this.#at + 1] !== undefined) {
        this.#at++;
        let end = p[this.#at];
        if (end === "\\") {
          const next = p[this.#at + 1];
          if (next === undefined || /[A-Za-z0-9]/.test(next)) throw new GiveUp();
          end = next;
          this.#at += 2;
        } else {
          this.#at++;
        }
        const from = c.codePointAt(0)!;
        const to = end.codePointAt(0)!;
        if (to - from >= MAX_CLASS * 2 || to < from) {
          known = false;
          continue;
        }
        for (let code = from; code <= to; code++) members.add(String.fromCodePoint(code));
        continue;
      }
      members.add(c);
    }
    if (!known) return ANY;
    const folded = new Set<string>();
    for (const m of members) {
      const lit = this.#literal(m);
      if (lit.exact === null) return ANY;
      for (const s of lit.exact) folded.add(s);
    }
    return folded.size <= MAX_CLASS ? { exact: folded, required: [] } : ANY;
  }

  /** One literal character as it appears in the lower-cased text. */
  #literal(c: string): Info {
    const code = c.codePointAt(0)!;
    if (code > 0x7f) return ANY;
    // Case-insensitive `s` also matches U+017F, which lower-casing leaves alone.
    if (!this.#caseSensitive && (c === "s" || c === "S")) return ANY;
    return { exact: new Set([c.toLowerCase()]), required: [] };
  }
}

const CONTROL_ESCAPES = new Map([
  ["n", "\n"],
  ["t", "\t"],
  ["r", "\r"],
  ["f", "\f"],
  ["v", "\v"],
  ["a", "\u0007"],
]);
