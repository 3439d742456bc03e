/**
 * Finds an ASCII word in a segment's UTF-8 bytes (line_store.ts
 * `byteSegments`) with the SIMD pair scan of grep_kernel.ts: the kernel
 * reports the places where two chosen bytes of the word stand at their
 * distance, and each is checked here for the whole word.
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

import { BATCH, type PairByte } from "./grep_kernel.ts";
import type { ByteSegment } from "./line_store.ts";

/** Bytes sampled for a segment's byte counts: one in this many. */
const SAMPLE_STEP = 16;
const segmentCounts = new WeakMap<ByteSegment, Uint32Array>();

/**
 * Whether {@link ByteWordFinder} can search `word`: not empty, ASCII only, no
 * `\n` (a word never spans lines in the byte form, where a cut line's mark
 * stands before its `\n`).
 */
export function byteSearchable(word: string): boolean {
  if (word.length === 0) return false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 0x80 || c === 10) return false;
  }
  return true;
}

/**
 * The first start of a word at or after a position in one segment's bytes,
 * ending at or before a fixed end; like `indexOf` over the segment, but only
 * moving forward cheaply (a search before the last batch of candidates
 * starts the kernel again).
 */
export class ByteWordFinder {
  readonly #segment: ByteSegment;
  readonly #needle: Uint8Array;
  readonly #fold: boolean;
  /** Last start that leaves room for the word before the end; -1 when it can never match. */
  readonly #lastStart: number;
  readonly #first: PairByte;
  readonly #second: PairByte;
  /** Candidates of the last kernel call, and the next one to look at. */
  #candidates = new Int32Array(0);
  #next = 0;
  /** The candidates cover starts in [#from, #to); #from is also the last `from` asked. */
  #from = 0;
  #to = 0;

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
      throw new RangeError(`ByteWordFinder needs a non-empty ASCII word without \\n`);
    }
    this.#segment = segment;
    this.#fold = !options.caseSensitive;
    const needle = new Uint8Array(word.length);
    for (let i = 0; i < word.length; i++) needle[i] = word.charCodeAt(i);
    this.#needle = needle;
    const impossible = this.#fold && needle.some(isUpper);
    this.#lastStart = impossible ? -1 : Math.min(options.end, segment.bytes.length) - word.length;
    const [a, b] = rarestPair(needle, byteCounts(segment), this.#fold);
    this.#first = this.#pairByte(a);
    this.#second = this.#pairByte(b);
  }

  /** The first start >= `from` of the word ending by the end, or -1. */
  find(from: number): number {
    if (from > this.#lastStart) return -1;
    // Candidates already passed over are below the last `from` or no match.
    if (from < this.#from || from >= this.#to) this.#fill(from);
    else this.#from = from;
    while (true) {
      const candidates = this.#candidates;
      while (this.#next < candidates.length) {
        const at = candidates[this.#next];
        if (at >= from && this.#matchesAt(at)) return at;
        this.#next++;
      }
      if (this.#to > this.#lastStart) return -1;
      this.#fill(this.#to);
    }
  }

  #fill(from: number): void {
    const found = this.#segment.kernel.pairCandidates(
      this.#first,
      this.#second,
      from,
      this.#lastStart,
    );
    this.#candidates = found.slice();
    this.#next = 0;
    this.#from = from;
    // A full batch may have stopped early: it covers only up to its last candidate.
    this.#to = found.length > BATCH - 32 ? found[found.length - 1] + 1 : this.#lastStart + 1;
  }

  #matchesAt(at: number): boolean {
    const { bytes } = this.#segment;
    const needle = this.#needle;
    for (let j = 0; j < needle.length; j++) {
      let h = bytes[at + j];
      if (this.#fold && isUpper(h)) h |= 0x20;
      if (h !== needle[j]) return false;
    }
    return true;
  }

  #pairByte(at: number): PairByte {
    const value = this.#needle[at];
    return { at, value, mask: this.#fold && isLower(value) ? 0x20 : 0 };
  }
}

function isUpper(b: number): boolean {
  return b >= 65 && b <= 90;
}

function isLower(b: number): boolean {
  return b >= 97 && b <= 122;
}

/**
 * Offsets of the two bytes the kernel looks for, in increasing order: the
 * rarest byte of the needle and the rarest other one (a different byte value
 * when there is one); both the same offset for a one-byte needle.
 */
function rarestPair(needle: Uint8Array, counts: Uint32Array, fold: boolean): [number, number] {
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
  if (other < 0) return [rarest, rarest];
  return rarest < other ? [rarest, other] : [other, rarest];
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
