/**
 * Sets of code points as the line automaton (re2_automaton.ts) needs them:
 * the ASCII part exactly, one flag per byte, and the rest as ranges. A set
 * may be marked *approximate*: it then holds at least the characters the
 * RE2 construct it stands for matches, maybe more. Over-approximation is
 * safe for the automaton's one-sided use (a line it rejects cannot match),
 * except under negation, so {@link negate} of an approximate set is the set
 * of every character. Non-ASCII parts are over-approximated freely; the
 * ASCII part of a set that is not approximate is exact.
 *
 * @module
 */

/** Highest Unicode code point. */
const MAX_POINT = 0x10ffff;
/** KELVIN SIGN: RE2's case folding puts it with `k` and `K`. */
export const KELVIN = 0x212a;
/** LATIN SMALL LETTER LONG S: RE2's case folding puts it with `s` and `S`. */
export const LONG_S = 0x17f;

/** A set of code points (see the module doc). */
export interface CodeSet {
  /** `ascii[c]` is 1 when the code point c (< 128) is in the set. */
  ascii: Uint8Array;
  /** Non-ASCII members: sorted, disjoint, inclusive `[from, to]` ranges. */
  high: Array<[number, number]>;
  /** The set may hold more than the construct it stands for (see the module doc). */
  approximate: boolean;
}

/** The empty set. */
export function emptySet(): CodeSet {
  return { ascii: new Uint8Array(128), high: [], approximate: false };
}

/** Every character (used where a construct is not modelled). */
export function anySet(): CodeSet {
  const set = emptySet();
  set.ascii.fill(1);
  set.high.push([0x80, MAX_POINT]);
  set.approximate = true;
  return set;
}

/** Adds the code points `from..to` (inclusive) to `set`. */
export function addRange(set: CodeSet, from: number, to: number): void {
  for (let c = from; c <= Math.min(to, 0x7f); c++) set.ascii[c] = 1;
  if (to >= 0x80) addHigh(set, Math.max(from, 0x80), to);
}

function addHigh(set: CodeSet, from: number, to: number): void {
  const ranges = [...set.high, [from, to] as [number, number]].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [lo, hi] of ranges) {
    const last = merged[merged.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  set.high = merged;
}

/** Adds every member of `other` to `set` (approximate if either is). */
export function addSet(set: CodeSet, other: CodeSet): void {
  for (let c = 0; c < 128; c++) set.ascii[c] |= other.ascii[c];
  for (const [from, to] of other.high) addHigh(set, from, to);
  set.approximate ||= other.approximate;
}

/** Whether code point `code` is in `set`. */
export function hasPoint(set: CodeSet, code: number): boolean {
  if (code < 0x80) return set.ascii[code] === 1;
  return set.high.some(([from, to]) => from <= code && code <= to);
}

/** Number of non-ASCII code points in `set`. */
export function highCount(set: CodeSet): number {
  return set.high.reduce((n, [from, to]) => n + to - from + 1, 0);
}

/**
 * The complement of `set` in its ASCII part, with every non-ASCII character
 * (the non-ASCII part of a folded set is widened, see {@link foldCase}, so
 * its complement could miss characters RE2 matches). `exact` says whether
 * `set`'s ASCII part is known to be exactly what RE2 negates; when it is not
 * (or `set` is approximate), the result is every character, the only safe
 * over-approximation.
 */
export function negate(set: CodeSet, exact: boolean): CodeSet {
  if (set.approximate || !exact) return anySet();
  const out = emptySet();
  for (let c = 0; c < 128; c++) out.ascii[c] = set.ascii[c] ^ 1;
  out.high.push([0x80, MAX_POINT]);
  return out;
}

/**
 * `set` closed under RE2's simple case folding, as far as the automaton
 * needs it: ASCII letters get their other case, `k`/`K` and the Kelvin sign
 * go together, as do `s`/`S` and the long s (no other non-ASCII character
 * folds to ASCII; tests/lib/regex/re2_automaton_test.ts checks that with
 * RE2). Other non-ASCII members would need Unicode's tables, so any of them
 * widens the non-ASCII part to every non-ASCII character: the ASCII part
 * stays exact, which is what {@link negate} relies on.
 */
export function foldCase(set: CodeSet): CodeSet {
  const out: CodeSet = { ascii: set.ascii.slice(), high: [], approximate: set.approximate };
  for (let c = 0x41; c <= 0x5a; c++) {
    if (set.ascii[c] || set.ascii[c + 0x20]) out.ascii[c] = out.ascii[c + 0x20] = 1;
  }
  const kelvin = hasPoint(set, KELVIN) || out.ascii[0x6b] === 1;
  const longS = hasPoint(set, LONG_S) || out.ascii[0x73] === 1;
  if (kelvin) out.ascii[0x4b] = out.ascii[0x6b] = 1;
  if (longS) out.ascii[0x53] = out.ascii[0x73] = 1;
  const others = highCount(set) - (hasPoint(set, KELVIN) ? 1 : 0) - (hasPoint(set, LONG_S) ? 1 : 0);
  if (others > 0) {
    out.high = [[0x80, MAX_POINT]];
  } else {
    if (longS) addHigh(out, LONG_S, LONG_S);
    if (kelvin) addHigh(out, KELVIN, KELVIN);
  }
  return out;
}

/** The set of one code point. */
export function pointSet(code: number): CodeSet {
  const set = emptySet();
  addRange(set, code, code);
  return set;
}

/** A set from ASCII ranges written as pairs of characters, e.g. `"azAZ09__"`. */
export function asciiSet(pairs: string): CodeSet {
  const set = emptySet();
  for (let i = 0; i < pairs.length; i += 2) {
    addRange(set, pairs.charCodeAt(i), pairs.charCodeAt(i + 1));
  }
  return set;
}
