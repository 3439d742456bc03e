/**
 * Finds an ASCII word in a segment's UTF-8 bytes (line_store.ts
 * `byteSegments`) with the SIMD pair scan of grep_kernel.ts: the kernel
 * looks for the places where two chosen bytes of the word stand at their
 * distance and checks each for the whole word.
 *
 * The two bytes are the word's rarest (byte counts sampled per segment, one
 * byte in {@link SAMPLE_STEP}) at different offsets, so that few places pass
 * the pair test on typical text. Case-insensitive search folds ASCII letters
 * (A-Z as a-z) in both the kernel's masks and the check; that equals
 * `lowerForScan` of the text only in a segment whose `foldsLikeLower` is
 * true, and only for an ASCII word: the caller decides (see
 * {@link byteSearchable}).
 *
 * @module
 */

import { type KernelWord, MAX_WORD_BYTES, needleWords, type PairByte } from "./grep_kernel.ts";
import type { ByteSegment } from "./line_store.ts";

/** Bytes sampled for a segment's byte counts: one in this many. */
const SAMPLE_STEP = 16;
/**
 * A byte expected less than once in this many is scanned for alone: the
 * one-byte scan runs at about twice the pair scan's speed, and a candidate
 * costs ~15 ns to check, which is below the time saved once candidates are
 * a few hundred bytes apart.
 */
const SINGLE_SPAN = 512;
const segmentCounts = new WeakMap<ByteSegment, Uint32Array>();

/**
 * Whether {@link ByteWordFinder} can search `word`: ASCII only, 1 to
 * `MAX_WORD_BYTES` (32) characters (the kernel checks a candidate in two
 * vector compares, which keeps a scan linear in the text; longer words use
 * the string form, as before), no `\n` (a word never
 * spans lines in the byte form, where a cut line's mark stands before its
 * `\n`).
 */
export function byteSearchable(word: string): boolean {
  if (word.length === 0 || word.length > MAX_WORD_BYTES) return false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 0x80 || c === 10) return false;
  }
  return true;
}

/**
 * The first start of a word at or after a position in one segment's bytes,
 * ending at or before a fixed end: `indexOf` over the segment, in the kernel.
 */
export class ByteWordFinder {
  readonly #segment: ByteSegment;
  readonly #word: KernelWord;
  /** Last start that leaves room for the word before the end; -1 when it can never match. */
  readonly #lastStart: number;

  /**
   * `word` must pass {@link byteSearchable}; `end` is the byte offset the word
   * must end by. With `caseSensitive` false the word is compared with the
   * text's ASCII letters folded to lower case (so a word holding A-Z never
   * matches, as in lower-cased text).
   */
  constructor(
    segment: ByteSegment,
    word: string,
    options: { caseSensitive: boolean; end: number },
  ) {
    if (!byteSearchable(word)) {
      throw new RangeError(
        `ByteWordFinder needs a non-empty ASCII word without \\n of at most ${MAX_WORD_BYTES} bytes`,
      );
    }
    this.#segment = segment;
    const fold = !options.caseSensitive;
    const needle = new Uint8Array(word.length);
    for (let i = 0; i < word.length; i++) needle[i] = word.charCodeAt(i);
    const impossible = fold && needle.some(isUpper);
    this.#lastStart = impossible ? -1 : Math.min(options.end, segment.bytes.length) - word.length;
    const counts = byteCounts(segment);
    const { rarest, other, sampled } = rarestPair(needle, counts, fold);
    const pairByte = (at: number): PairByte => {
      const value = needle[at];
      return { at, value, mask: fold && isLower(value) ? 0x20 : 0 };
    };
    // The rarest byte alone when it is expected less than once in SINGLE_SPAN bytes.
    const single = other < 0 || sampled * SAMPLE_STEP * SINGLE_SPAN < segment.bytes.length;
    const [a, b] = single ? [rarest, rarest] : [Math.min(rarest, other), Math.max(rarest, other)];
    this.#word = {
      text: word,
      needle,
      words: needleWords(needle),
      first: pairByte(a),
      second: pairByte(b),
      fold,
      single,
    };
  }

  /** The first start >= `from` of the word ending by the end, or -1. */
  find(from: number): number {
    return this.#segment.kernel.findWord(this.#word, from, this.#lastStart);
  }
}

/** Windows of a segment sampled by {@link sampledOccurrences}, and the bytes of each. */
const SAMPLE_WINDOWS = 8;
const WINDOW_BYTES = 16 * 1024;
const occurrences = new WeakMap<ByteSegment, Map<string, number>>();

/**
 * About how many times `word` (byte-searchable, ASCII letters folded) occurs
 * in `segment`: the finds in {@link SAMPLE_WINDOWS} windows spread over it,
 * scaled to its size; kept per segment and word. Counting the word itself
 * rather than its rarest byte matters: in English "q" is rare, yet "qu" is on
 * most lines that hold a "q".
 */
export function sampledOccurrences(segment: ByteSegment, word: string): number {
  let known = occurrences.get(segment);
  if (known === undefined) occurrences.set(segment, known = new Map());
  const cached = known.get(word);
  if (cached !== undefined) return cached;
  const length = segment.bytes.length;
  const windows = Math.min(SAMPLE_WINDOWS, Math.ceil(length / WINDOW_BYTES));
  const step = windows > 1 ? (length - WINDOW_BYTES) / (windows - 1) : 0;
  let found = 0;
  let sampled = 0;
  for (let w = 0; w < windows; w++) {
    const from = Math.floor(w * step);
    const end = Math.min(from + WINDOW_BYTES, length);
    sampled += end - from;
    const finder = new ByteWordFinder(segment, word, { caseSensitive: false, end });
    for (let at = finder.find(from); at >= 0; at = finder.find(at + 1)) found++;
  }
  const estimate = sampled === 0 ? 0 : found * length / sampled;
  known.set(word, estimate);
  return estimate;
}

function isUpper(b: number): boolean {
  return b >= 65 && b <= 90;
}

function isLower(b: number): boolean {
  return b >= 97 && b <= 122;
}

/**
 * Offsets of the two bytes the kernel looks for: the rarest byte of the
 * needle, with its sampled count, and the rarest other one (a different byte
 * value when there is one; -1 for a one-byte needle).
 */
function rarestPair(
  needle: Uint8Array,
  counts: Uint32Array,
  fold: boolean,
): { rarest: number; other: number; sampled: number } {
  const count = (b: number) => fold && isLower(b) ? counts[b] + counts[b - 32] : counts[b];
  let rarest = 0;
  for (let i = 1; i < needle.length; i++) {
    if (count(needle[i]) < count(needle[rarest])) rarest = i;
  }
  // A repeat of the rarest byte value tells the pair test nothing new: it comes last.
  const cost = (i: number) => (needle[i] === needle[rarest] ? 2 ** 32 : 0) + count(needle[i]);
  let other = -1;
  for (let i = 0; i < needle.length; i++) {
    if (i !== rarest && (other < 0 || cost(i) < cost(other))) other = i;
  }
  return { rarest, other, sampled: count(needle[rarest]) };
}

/** How often each byte value occurs in `segment`, counted on a sample; built on first use. */
function byteCounts(segment: ByteSegment): Uint32Array {
  let counts = segmentCounts.get(segment);
  if (counts === undefined) {
    counts = new Uint32Array(256);
    const { bytes } = segment;
    for (let i = 0; i < bytes.length; i += SAMPLE_STEP) counts[bytes[i]]++;
    segmentCounts.set(segment, counts);
  }
  return counts;
}
