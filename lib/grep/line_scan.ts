/**
 * The two scans `corpus_grep` runs over a line store (line_store.ts): plain
 * words ({@link scanWords}, here) and regex (`scanRegex`, regex_scan.ts).
 * Both report matching lines in corpus order with the column of the first
 * match ({@link ScanResult}), and stop after a limit.
 *
 * Each scan searches the joined text of a segment at once (see
 * line_store.ts) and maps hits back to lines by binary search over the line
 * offsets. Plain ASCII words are searched in the UTF-8 form with a SIMD
 * kernel (byte_word_finder.ts), other words in the string form. A regex scan can be given literal strings every match must contain
 * (`requiredLiterals` in re2_prefilter.ts); it then looks for those with
 * `indexOf` first and hands the engine only the lines that hold them.
 *
 * @module
 */

import { byteSearchable, ByteWordFinder } from "./byte_word_finder.ts";
import { KmpFinder } from "./kmp_finder.ts";
import {
  type ByteSegment,
  byteSegments,
  type LineRange,
  type LineStore,
  type TextSegment,
  textSegments,
  upperBound,
} from "./line_store.ts";

/** A matching line found by a scan. */
export interface LineHit {
  /** Global line index (see `lineAddress` in line_store.ts for document and line number). */
  line: number;
  /** Where the first match starts in the line's scanned text, in UTF-16 units. */
  column: number;
}

/** What a scan found: hits in corpus order, at most `limit` of them. */
export interface ScanResult {
  /** Matching lines in corpus order. */
  hits: LineHit[];
  /** True when the scan stopped at `limit` with lines left unsearched. */
  stoppedAtLimit: boolean;
  /**
   * Set when a regex scan stopped at its `deadline`: the global index of the first line it did
   * not finish searching (lines from there to the end of the range are unsearched).
   */
  stoppedAtLine?: number;
}

/**
 * Lines of `range` that contain every one of `words` (substring match; for a
 * case-insensitive search the caller passes the words through
 * `lowerForScan` in line_store.ts). Stops after `limit` hits.
 *
 * ASCII words are found in the UTF-8 form with the SIMD pair scan
 * (byte_word_finder.ts); a segment where ASCII case folding would differ
 * from `lowerForScan` (see `foldsLikeLower`), and any word outside ASCII,
 * use the string form and {@link WordFinder}. Both give the same lines and
 * columns.
 */
export function scanWords(
  store: LineStore,
  words: readonly string[],
  options: { caseSensitive: boolean; range?: LineRange; limit: number; signal?: AbortSignal },
): ScanResult {
  if (words.length === 0) throw new RangeError("scanWords needs at least one word");
  // The longest word first: usually the rarest, so the fewest candidate lines.
  const ordered = [...new Set(words)].sort((a, b) => b.length - a.length);
  const { caseSensitive } = options;
  const range = options.range ?? { from: 0, to: store.lineCount };
  const hits: LineHit[] = [];
  const ascii = ordered.every(byteSearchable);
  const bytes = ascii ? byteSegments(store) : undefined;
  for (let s = 0; s + 1 < store.segmentStarts.length; s++) {
    const firstLine = store.segmentStarts[s];
    const count = store.segmentStarts[s + 1] - firstLine;
    const from = Math.max(range.from - firstLine, 0);
    const to = Math.min(range.to - firstLine, count);
    if (from >= to) continue;
    options.signal?.throwIfAborted();
    const segment = bytes?.[s];
    let stopped: boolean;
    if (segment !== undefined && (caseSensitive || segment.foldsLikeLower)) {
      const end = segment.byteOffsets[to] - 1;
      const finders = ordered.map((word) =>
        new ByteWordFinder(segment, word, { caseSensitive, end })
      );
      stopped = scanSegmentWords(segment.byteOffsets, finders, { from, to, firstLine }, hits, {
        limit: options.limit,
        column: (line, at) => byteColumn(segment, line, at),
      });
    } else {
      const text = textSegments(store, !caseSensitive)[s];
      const end = text.offsets[to] - 1;
      const counts = sampledCounts(text);
      const finders = ordered.map((word) =>
        textFinder(
          text.text,
          word.length > ANCHORED_WORD_MAX ? new KmpFinder(word) : new WordFinder(word, counts),
          end,
        )
      );
      stopped = scanSegmentWords(text.offsets, finders, { from, to, firstLine }, hits, {
        limit: options.limit,
        column: (line, at) => at - text.offsets[line],
      });
    }
    if (stopped) return { hits, stoppedAtLimit: true };
  }
  return { hits, stoppedAtLimit: false };
}

/** Finds a word from a position in one segment; -1 when it does not start before the scan's end. */
interface SegmentFinder {
  find(from: number): number;
}

function textFinder(
  text: string,
  word: { find(text: string, from: number): number },
  end: number,
): SegmentFinder {
  return {
    find(from) {
      const at = word.find(text, from);
      return at >= end ? -1 : at;
    },
  };
}

/**
 * Leapfrog intersection over one segment's lines `[from, to)` (`offsets` are
 * the line starts in the finders' positions): find the next line holding the
 * first word, then check that each other word's next occurrence is on that
 * same line; when one is further on, restart from its line. Each word's
 * search only moves forward. Returns true when `limit` was reached with
 * lines left.
 */
function scanSegmentWords(
  offsets: Uint32Array,
  words: readonly SegmentFinder[],
  lines: { from: number; to: number; firstLine: number },
  hits: LineHit[],
  options: { limit: number; column: (line: number, at: number) => number },
): boolean {
  const { to } = lines;
  let line = lines.from;
  while (line < to) {
    const at = words[0].find(offsets[line]);
    if (at < 0) return false;
    const candidate = upperBound(offsets, at, line, to) - 1;
    const lineStart = offsets[candidate];
    let first = at;
    let next = candidate;
    for (let w = 1; w < words.length; w++) {
      const found = words[w].find(lineStart);
      if (found < 0) return false;
      if (found >= offsets[candidate + 1]) {
        next = upperBound(offsets, found, candidate, to) - 1;
        break;
      }
      if (found < first) first = found;
    }
    if (next !== candidate) {
      line = next;
      continue;
    }
    if (hits.length >= options.limit) return true;
    hits.push({ line: lines.firstLine + candidate, column: options.column(candidate, first) });
    line = candidate + 1;
  }
  return false;
}

/** The UTF-16 column of byte offset `at` in `line` of a byte segment. */
function byteColumn(segment: ByteSegment, line: number, at: number): number {
  const start = segment.byteOffsets[line];
  if (segment.byteOffsets === segment.pointOffsets) return at - start;
  const { bytes } = segment;
  let units = 0;
  for (let i = start; i < at; i++) {
    const b = bytes[i];
    if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1;
  }
  return units;
}

/**
 * Longest word found with `indexOf` (see {@link WordFinder}); a longer one is found by
 * `KmpFinder`, since `indexOf` can cost up to the word's length at every position of the text.
 */
const ANCHORED_WORD_MAX = 32;
/** Characters sampled for a segment's character counts: one in this many. */
const SAMPLE_STEP = 16;
const segmentCounts = new WeakMap<TextSegment, Uint32Array>();

/**
 * How often each UTF-16 unit occurs in `segment`'s text, counted on a sample
 * (one unit in {@link SAMPLE_STEP}); built on first use and kept.
 */
function sampledCounts(segment: TextSegment): Uint32Array {
  let counts = segmentCounts.get(segment);
  if (counts === undefined) {
    counts = new Uint32Array(65536);
    const { text } = segment;
    for (let i = 0; i < text.length; i += SAMPLE_STEP) counts[text.charCodeAt(i)]++;
    segmentCounts.set(segment, counts);
  }
  return counts;
}

/**
 * Finds a word in a segment's text the way `indexOf` does, but looks first
 * for the part of the word that starts at its rarest character: V8 scans for
 * a pattern's first character with `memchr`, which is fastest when that
 * character is rare; each find is then checked for the rest of the word.
 */
class WordFinder {
  readonly #prefix: string;
  readonly #anchor: string;
  readonly #skip: number;

  constructor(word: string, counts: Uint32Array) {
    let rarest = 0;
    for (let i = 1; i < word.length; i++) {
      if (counts[word.charCodeAt(i)] < counts[word.charCodeAt(rarest)]) rarest = i;
    }
    this.#prefix = word.slice(0, rarest);
    this.#anchor = word.slice(rarest);
    this.#skip = rarest;
  }

  /** The first index >= `from` where the word occurs in `text`, or -1 (as `indexOf`). */
  find(text: string, from: number): number {
    const skip = this.#skip;
    let at = text.indexOf(this.#anchor, from + skip);
    if (skip === 0) return at;
    while (at >= 0 && !text.startsWith(this.#prefix, at - skip)) {
      at = text.indexOf(this.#anchor, at + 1);
    }
    return at < 0 ? -1 : at - skip;
  }
}
