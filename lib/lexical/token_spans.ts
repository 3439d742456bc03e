/**
 * Step 2 of the tokenizer's rule (tokenizer.ts): splitting normalised text
 * into tokens (words, numbers, Han, Hiragana or Katakana characters,
 * abbreviations) by the class of each character. The class table of the
 * ASCII range ({@link UNIT_CLASS}) is shared with the ASCII fast path of
 * `TermInterner` (term_interner.ts); other characters are classified on first
 * sight and remembered.
 *
 * @module
 */

// Character classes of the scanner.
const SEP = 0;
/** @internal Class of a word character in {@link UNIT_CLASS}. */
export const WORD = 1;
/** @internal Class of an ASCII digit in {@link UNIT_CLASS}. */
export const DIGIT = 2;
const IDEO = 3;
/** @internal Class of an apostrophe (`'` or `’`) in {@link UNIT_CLASS}. */
export const APOS = 4;
const DOT = 5;
const COMMA = 6;
/** Set on a class when the character is a surrogate pair (two UTF-16 units). */
const WIDE = 8;
const UNKNOWN = 255;

const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const IDEOGRAPH = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;

/**
 * @internal Classes of the 65,536 UTF-16 units, filled lazily for non-ASCII
 * ones. Entries 0-127 are always set, which is what the ASCII fast path of
 * `TermInterner` (term_interner.ts) reads; other entries may still be unknown.
 */
export const UNIT_CLASS = new Uint8Array(65536).fill(UNKNOWN);
for (let c = 0; c < 128; c++) {
  let k = SEP;
  if (c >= 48 && c <= 57) k = DIGIT;
  else if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) k = WORD;
  else if (c === 39) k = APOS;
  else if (c === 46) k = DOT;
  else if (c === 44) k = COMMA;
  UNIT_CLASS[c] = k;
}
UNIT_CLASS[0x2019] = APOS;
const ASTRAL_CLASS = new Map<number, number>();

function classifyCodePoint(ch: string): number {
  if (IDEOGRAPH.test(ch)) return IDEO;
  return WORD_CHAR.test(ch) ? WORD : SEP;
}

/** Class of the character at `i` (with {@link WIDE} set for a surrogate pair). */
function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  const k = UNIT_CLASS[c];
  if (k !== UNKNOWN) return k;
  if (c >= 0xd800 && c <= 0xdfff) {
    // Surrogates are classified as pairs and never cached per unit; a lone one separates.
    const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    if (c > 0xdbff || d < 0xdc00 || d > 0xdfff) return SEP;
    const cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
    let a = ASTRAL_CLASS.get(cp);
    if (a === undefined) {
      a = classifyCodePoint(String.fromCodePoint(cp));
      ASTRAL_CLASS.set(cp, a);
    }
    return a === SEP ? SEP : a | WIDE;
  }
  const u = classifyCodePoint(String.fromCharCode(c));
  UNIT_CLASS[c] = u;
  return u;
}

function isDigit(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** Token boundaries found by {@link scanSpans}: `starts[i]`..`ends[i]` (end exclusive). */
export class SpanBuffer {
  /** Start offsets (UTF-16 units) of the tokens found by the last scan. */
  starts: Int32Array;
  /** End offsets (exclusive) of the tokens found by the last scan. */
  ends: Int32Array;

  /** Makes buffers for `capacity` tokens; {@link scanSpans} grows them when a text has more. */
  constructor(capacity = 1024) {
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /** Grows the buffers to hold at least `capacity` tokens, keeping what they hold. */
  grow(capacity: number): void {
    const starts = new Int32Array(capacity);
    const ends = new Int32Array(capacity);
    starts.set(this.starts);
    ends.set(this.ends);
    this.starts = starts;
    this.ends = ends;
  }
}

/**
 * The end of the word starting at `i` when that word is one character long
 * (a letter that no letter, nor apostrophe and letter, follows), else -1.
 */
function oneCharacterWordEnd(text: string, i: number): number {
  if (i >= text.length) return -1;
  const k = classAt(text, i);
  if ((k & ~WIDE) !== WORD) return -1;
  const end = i + (k & WIDE ? 2 : 1);
  if (end >= text.length) return end;
  const next = classAt(text, end) & ~WIDE;
  if (next === WORD) return -1;
  if (next === APOS && end + 1 < text.length && (classAt(text, end + 1) & ~WIDE) === WORD) {
    return -1;
  }
  return end;
}

/**
 * Step 2 of the rule: finds the tokens ("surface forms") of an already
 * normalised text and writes their offsets into `spans`. Returns how many
 * were found. Stopwords are not removed here (see {@link termOfSurface}).
 * `abbreviations` joins letter-dot abbreviations into one token (the
 * `abbreviations: keep` setting).
 */
export function scanSpans(text: string, spans: SpanBuffer, abbreviations = false): number {
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    const c0 = text.charCodeAt(i);
    let k = c0 < 128 ? UNIT_CLASS[c0] : classAt(text, i);
    const start = i;
    if (k === WORD || k === (WORD | WIDE)) {
      i += k === WORD ? 1 : 2;
      while (i < n) {
        const c = text.charCodeAt(i);
        k = c < 128 ? UNIT_CLASS[c] : classAt(text, i);
        if (k === WORD) i++;
        else if (k === (WORD | WIDE)) i += 2;
        else if (k === APOS && i + 1 < n && (classAt(text, i + 1) & ~WIDE) === WORD) i++;
        else break;
      }
      // A word of one character followed by ".x", ".y", ... (each one character long).
      if (abbreviations && i - start <= 2 && oneCharacterWordEnd(text, start) === i) {
        while (i + 1 < n && text.charCodeAt(i) === 46) {
          const end = oneCharacterWordEnd(text, i + 1);
          if (end < 0) break;
          i = end;
        }
      }
    } else if (k === DIGIT) {
      i++;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c >= 48 && c <= 57) i++;
        else if (c === 46 && i + 1 < n && isDigit(text, i + 1)) i += 2;
        else if (
          c === 44 && i + 3 < n && isDigit(text, i + 1) && isDigit(text, i + 2) &&
          isDigit(text, i + 3) && !(i + 4 < n && isDigit(text, i + 4))
        ) i += 4;
        else break;
      }
    } else if (k === IDEO || k === (IDEO | WIDE)) {
      i += k === IDEO ? 1 : 2;
    } else {
      i += k & WIDE ? 2 : 1;
      continue;
    }
    if (count === spans.starts.length) spans.grow(count * 2);
    spans.starts[count] = start;
    spans.ends[count] = i;
    count++;
  }
  return count;
}

/** Whether `surface` (a token of {@link scanSpans}) is a word of one character. */
export function isSingleLetter(surface: string): boolean {
  const n = surface.length;
  if (n === 1) return (classAt(surface, 0) & ~WIDE) === WORD;
  return n === 2 && classAt(surface, 0) === (WORD | WIDE);
}
