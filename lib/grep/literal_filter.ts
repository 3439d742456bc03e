/**
 * The literal prefilter of regex scans (regex_scan.ts): given sets of
 * lower-case ASCII strings that every matching line holds one of each
 * (`requiredLiterals` in re2_prefilter.ts), {@link literalFilter} finds the
 * lines that hold them, so the DFA and RE2 see only those.
 *
 * In the UTF-8 form, with the SIMD byte scan of grep_kernel.ts
 * ({@link ByteLiteralFilter}), ASCII letters folded: for ASCII strings in a
 * segment whose `foldsLikeLower` holds that finds exactly what `indexOf` in
 * the lower-cased text found, at ~6-10 GB/s instead of V8's `indexOf`, and
 * without the lower-cased copy of the text (which the scan used to build on
 * the first regex: a second copy of the corpus in the worker). The set
 * searched for is the one expected rarest in the segment (its strings
 * counted in samples of the segment), not the one with the longest strings:
 * "qu" and "ka" are both two letters, and in Cranfield "qu" is on 60 % of the
 * lines, "ka" on 5 %.
 *
 * @module
 */

import { byteSearchable, ByteWordFinder, sampledOccurrences } from "./byte_word_finder.ts";
import { type LineFilter, RememberingLineFilter } from "./line_dfa.ts";
import {
  type ByteSegment,
  type LineStore,
  type TextSegment,
  textSegments,
  upperBound,
} from "./line_store.ts";
import { MAX_WORD_BYTES } from "./grep_kernel.ts";

/**
 * The filter of segment `s` for `sets`: over its bytes when every string can
 * be searched there, else over its lower-cased text (built on first use).
 */
export function literalFilter(
  store: LineStore,
  s: number,
  sets: readonly (readonly string[])[],
  /** @internal tests force how a set is searched: by its shared piece, or string by string. */
  share: SharePolicy = "cheaper",
): LineFilter {
  const segment = store.forms.utf8[s];
  // A string longer than the kernel's words is looked for by its start: any line holding it
  // holds its start, so the filter stays sound (it only lets through more lines).
  const bytes = sets.map((set) => set.map((string) => string.slice(0, MAX_WORD_BYTES)));
  if (segment.foldsLikeLower && bytes.every((set) => set.every(byteSearchable))) {
    return new ByteLiteralFilter(segment, bytes, share);
  }
  return new StringLiteralFilter(textSegments(store, true)[s], sets);
}

/** How a set whose strings share a prefix or suffix is searched: by the piece, string by string, or the cheaper. */
export type SharePolicy = "cheaper" | "always" | "never";

/** One string searched in a segment's bytes, remembering its last find so it only moves on. */
class ForwardFinder {
  readonly #finder: ByteWordFinder;
  /** The last search started at `#from` and found `#at` (-1: none from there on). */
  #from = -1;
  #at = -1;

  constructor(segment: ByteSegment, word: string) {
    this.#finder = new ByteWordFinder(segment, word, {
      caseSensitive: false,
      end: segment.bytes.length,
    });
  }

  /** The first occurrence at or after `from`, or -1. */
  find(from: number): number {
    if (this.#from >= 0 && from >= this.#from && (this.#at < 0 || from <= this.#at)) {
      return this.#at;
    }
    this.#from = from;
    this.#at = this.#finder.find(from);
    return this.#at;
  }
}

/**
 * Work, in nanoseconds, of a pass of the SIMD scan over one byte, and of
 * each find it hands back (a kernel call, the JavaScript around it, a check):
 * what {@link SetFinder} weighs to choose how to search a set, and the filter
 * to choose which set to search (measured here: ~0.2-0.3 ns a byte, 100-400
 * ns a find).
 */
const PASS_NS_PER_BYTE = 0.3;
const FIND_NS = 150;

/**
 * The strings of one set searched together: the earliest start of any of
 * them. Either each string on its own (one pass over the text each), or,
 * when they share a prefix or a suffix of two bytes or more (as the
 * expansion of `ka\\d` shares "ka"), that piece once, each find checked for a
 * whole string — whichever the sampled counts say costs less: ten passes for
 * `ka\\d` where "ka" is on most lines, one where it is rare.
 */
class SetFinder {
  /** Estimated work of searching the whole segment this way, in nanoseconds. */
  readonly cost: number;
  readonly #bytes: Uint8Array;
  readonly #separate: ForwardFinder[] = [];
  readonly #shared: ForwardFinder | null = null;
  /** Length of the shared piece, and whether it is the strings' start (else their end). */
  readonly #sharedLength: number = 0;
  readonly #prefix: boolean = true;
  /** By the byte just after a shared prefix (before a shared suffix): the strings to check. */
  readonly #byNext: Array<Uint8Array[] | undefined> = [];
  readonly #longest: number;
  #from = -1;
  #at = -1;

  constructor(segment: ByteSegment, set: readonly string[], share: SharePolicy) {
    this.#bytes = segment.bytes;
    const strings = set.map((string) => Uint8Array.from(string, (c) => c.charCodeAt(0)));
    this.#longest = Math.max(...strings.map((s) => s.length));
    const found = set.reduce((sum, string) => sum + sampledOccurrences(segment, string), 0);
    const pass = segment.bytes.length * PASS_NS_PER_BYTE;
    const separate = pass * set.length + found * FIND_NS;
    const prefix = commonPrefix(set);
    const suffix = commonPrefix(set.map(reversed));
    const length = Math.max(prefix, suffix);
    // Every string longer than the piece: a string equal to it would need no check at all.
    const shareable = set.length > 1 && length >= 2 && strings.every((s) => s.length > length);
    if (shareable && share !== "never") {
      const piece = prefix >= suffix ? set[0].slice(0, length) : set[0].slice(-length);
      const shared = pass + sampledOccurrences(segment, piece) * FIND_NS;
      if (share === "always" || shared < separate) {
        this.cost = shared;
        this.#prefix = prefix >= suffix;
        this.#sharedLength = length;
        this.#shared = new ForwardFinder(segment, piece);
        for (const string of strings) {
          const next = string[this.#prefix ? length : string.length - length - 1];
          (this.#byNext[next] ??= []).push(string);
        }
        return;
      }
    }
    this.cost = separate;
    this.#separate = set.map((string) => new ForwardFinder(segment, string));
  }

  /** The earliest start at or after `from` of a string of the set, or -1. */
  find(from: number): number {
    if (this.#from >= 0 && from >= this.#from && (this.#at < 0 || from <= this.#at)) {
      return this.#at;
    }
    this.#from = from;
    this.#at = this.#shared === null ? earliest(this.#separate, from) : this.#findShared(from);
    return this.#at;
  }

  #findShared(from: number): number {
    const shared = this.#shared!;
    const length = this.#sharedLength;
    const bytes = this.#bytes;
    // A suffix found at q ends a string that starts up to its length before q.
    let q = shared.find(this.#prefix ? from : Math.max(0, from + length - this.#longest));
    while (q >= 0) {
      const at = this.#prefix ? q + length : q - 1;
      const b = at >= 0 && at < bytes.length ? bytes[at] : -1;
      const strings = b < 0 ? undefined : this.#byNext[b >= 65 && b <= 90 ? b | 0x20 : b];
      let best = -1;
      for (const string of strings ?? []) {
        const start = this.#prefix ? q : q + length - string.length;
        if (start >= from && (best < 0 || start < best) && this.#matches(string, start)) {
          best = start;
        }
      }
      if (best >= 0) return best;
      q = shared.find(q + 1);
    }
    return -1;
  }

  /** Whether `string` (lower-case ASCII) stands at `start`, the text's letters folded. */
  #matches(string: Uint8Array, start: number): boolean {
    const bytes = this.#bytes;
    if (start < 0 || start + string.length > bytes.length) return false;
    for (let i = 0; i < string.length; i++) {
      const b = bytes[start + i];
      if ((b >= 65 && b <= 90 ? b | 0x20 : b) !== string[i]) return false;
    }
    return true;
  }
}

/**
 * Finds lines of a byte segment that hold a string of every set: the set
 * expected cheapest is searched for, the other sets are checked on each line
 * it finds (leapfrogging to the next line that holds them). Every search only
 * moves forward, so a scan is linear in the text.
 */
class ByteLiteralFilter extends RememberingLineFilter {
  readonly #offsets: Uint32Array;
  readonly #primary: SetFinder;
  readonly #others: SetFinder[];

  constructor(segment: ByteSegment, sets: readonly (readonly string[])[], share: SharePolicy) {
    super();
    this.#offsets = segment.byteOffsets;
    const finders = sets.map((set) => new SetFinder(segment, set, share));
    let primary = 0;
    for (let i = 1; i < finders.length; i++) {
      if (finders[i].cost < finders[primary].cost) primary = i;
    }
    this.#primary = finders[primary];
    this.#others = finders.filter((_, i) => i !== primary);
  }

  protected search(line: number, to: number): number {
    const offsets = this.#offsets;
    const end = offsets[to] - 1;
    search: while (line < to) {
      const at = this.#primary.find(offsets[line]);
      if (at < 0 || at >= end) return to;
      const candidate = upperBound(offsets, at, line, to) - 1;
      const lineStart = offsets[candidate];
      const lineEnd = offsets[candidate + 1] - 1;
      for (const set of this.#others) {
        const next = set.find(lineStart);
        // No string of this set from here on: no line further on can match.
        if (next < 0 || next >= end) return to;
        if (next >= lineEnd) {
          // Skip to the line of the set's next find: no line before it holds the set.
          line = Math.max(candidate + 1, upperBound(offsets, next, candidate, to) - 1);
          continue search;
        }
      }
      return candidate;
    }
    return to;
  }
}

/** The earliest find of any of `finders` at or after `from`, or -1. */
function earliest(finders: readonly ForwardFinder[], from: number): number {
  let best = -1;
  for (const finder of finders) {
    const at = finder.find(from);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

/** Length of the prefix all of `strings` share. */
function commonPrefix(strings: readonly string[]): number {
  let length = 0;
  const first = strings[0];
  while (length < first.length && strings.every((s) => s[length] === first[length])) length++;
  return length;
}

function reversed(string: string): string {
  return [...string].reverse().join("");
}

/**
 * The string form of the filter, for a segment the byte scan cannot fold like
 * `lowerForScan` (one holding İ or the Kelvin sign) or a literal it cannot
 * take: finds lines of the lower-cased segment that hold a string of every
 * set. The most selective set is searched for (indexOf for one string, a V8
 * RegExp of plain alternatives for several: no quantifiers, so linear), the
 * other sets are checked on each line it finds.
 */
class StringLiteralFilter extends RememberingLineFilter {
  readonly #segment: TextSegment;
  readonly #single: string | undefined;
  readonly #alternatives: RegExp | undefined;
  readonly #others: readonly (readonly string[])[];

  constructor(segment: TextSegment, sets: readonly (readonly string[])[]) {
    super();
    this.#segment = segment;
    let primary = 0;
    for (let i = 1; i < sets.length; i++) {
      if (selectivity(sets[i]) > selectivity(sets[primary])) primary = i;
    }
    const chosen = sets[primary];
    if (chosen.length === 1) this.#single = chosen[0];
    else this.#alternatives = new RegExp(alternation(chosen), "g");
    this.#others = sets.filter((_, i) => i !== primary);
  }

  protected search(line: number, to: number): number {
    const { text, offsets } = this.#segment;
    const end = offsets[to] - 1;
    while (line < to) {
      let at: number;
      if (this.#single !== undefined) {
        at = text.indexOf(this.#single, offsets[line]);
      } else {
        const pattern = this.#alternatives!;
        pattern.lastIndex = offsets[line];
        at = pattern.exec(text)?.index ?? -1;
      }
      if (at < 0 || at >= end) return to;
      const candidate = upperBound(offsets, at, line, to) - 1;
      if (this.#others.length === 0) return candidate;
      const lineText = text.slice(offsets[candidate], offsets[candidate + 1] - 1);
      if (this.#others.every((set) => set.some((s) => lineText.includes(s)))) return candidate;
      line = candidate + 1;
    }
    return to;
  }
}

/** Longer shortest string first, then fewer strings. */
function selectivity(set: readonly string[]): number {
  return Math.min(...set.map((s) => s.length)) * 100 - set.length;
}

/** A V8 regex source matching any of `strings` literally, sharing common prefixes. */
function alternation(strings: readonly string[]): string {
  const root = new Map<string, unknown>();
  for (const s of strings) {
    let node = root;
    for (const ch of s) {
      let child = node.get(ch) as Map<string, unknown> | undefined;
      if (child === undefined) node.set(ch, child = new Map());
      node = child;
    }
    node.set("", true);
  }
  const emit = (node: Map<string, unknown>): string => {
    const ends = node.has("");
    const branches = [...node.entries()].filter(([ch]) => ch !== "");
    if (branches.length === 0) return "";
    const leaves = branches.every(([, child]) =>
      (child as Map<string, unknown>).size === 1 &&
      (child as Map<string, unknown>).has("")
    );
    let body: string;
    if (leaves && branches.length > 1) {
      body = `[${branches.map(([ch]) => escapeClass(ch)).join("")}]`;
    } else {
      const parts = branches.map(([ch, child]) =>
        escapeRegex(ch) + emit(child as Map<string, unknown>)
      );
      body = parts.length === 1 ? parts[0] : `(?:${parts.join("|")})`;
    }
    return ends ? `(?:${body})?` : body;
  };
  return emit(root);
}

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|\/-]/.test(ch) ? `\\${ch}` : ch;
}

function escapeClass(ch: string): string {
  return /[\\\]^-]/.test(ch) ? `\\${ch}` : ch;
}
