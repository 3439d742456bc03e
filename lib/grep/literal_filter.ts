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
): LineFilter {
  const segment = store.forms.utf8[s];
  // A string longer than the kernel's words is looked for by its start: any line holding it
  // holds its start, so the filter stays sound (it only lets through more lines).
  const bytes = sets.map((set) => set.map((string) => string.slice(0, MAX_WORD_BYTES)));
  if (segment.foldsLikeLower && bytes.every((set) => set.every(byteSearchable))) {
    return new ByteLiteralFilter(segment, bytes);
  }
  return new StringLiteralFilter(textSegments(store, true)[s], sets);
}

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
 * Finds lines of a byte segment that hold a string of every set: the set
 * expected rarest is searched for (each of its strings with the SIMD scan,
 * the earliest find taken), the other sets are checked on each line it
 * finds. Every search only moves forward, so a scan is linear in the text.
 */
class ByteLiteralFilter extends RememberingLineFilter {
  readonly #offsets: Uint32Array;
  readonly #primary: ForwardFinder[];
  readonly #others: ForwardFinder[][];

  constructor(segment: ByteSegment, sets: readonly (readonly string[])[]) {
    super();
    this.#offsets = segment.byteOffsets;
    const expected = sets.map((set) =>
      set.reduce((sum, string) => sum + sampledOccurrences(segment, string), 0)
    );
    let primary = 0;
    for (let i = 1; i < sets.length; i++) if (expected[i] < expected[primary]) primary = i;
    const finders = sets.map((set) => set.map((string) => new ForwardFinder(segment, string)));
    this.#primary = finders[primary];
    this.#others = finders.filter((_, i) => i !== primary);
  }

  protected search(line: number, to: number): number {
    const offsets = this.#offsets;
    const end = offsets[to] - 1;
    while (line < to) {
      const at = earliest(this.#primary, offsets[line]);
      if (at < 0 || at >= end) return to;
      const candidate = upperBound(offsets, at, line, to) - 1;
      const lineStart = offsets[candidate];
      const lineEnd = offsets[candidate + 1] - 1;
      if (this.#others.every((set) => holds(set, lineStart, lineEnd))) return candidate;
      line = candidate + 1;
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

/** Whether one of `finders`' strings starts in [start, end) (a string never spans a line end). */
function holds(finders: readonly ForwardFinder[], start: number, end: number): boolean {
  for (const finder of finders) {
    const at = finder.find(start);
    if (at >= 0 && at < end) return true;
  }
  return false;
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

