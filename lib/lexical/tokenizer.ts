/**
 * The one tokenizer of ragbench's lexical retrieval, used for documents and
 * queries alike, so a word is found exactly when the query spells it the way
 * the index does.
 *
 * The rule, applied in this order:
 *
 * 1. **Normalise**: Unicode NFKC (full-width letters, ligatures and
 *    superscripts become their plain forms), then lower-case.
 * 2. **Split** into tokens. A token is one of:
 *    - a *word*: a maximal run of letters (`\p{L}`), combining marks (`\p{M}`)
 *      and non-ASCII digits. An apostrophe (`'` or `’`) between two such
 *      characters stays inside the word (`don't`, `o'neill`, `eiffel's`);
 *    - a *number*: a maximal run of ASCII digits 0-9. A `.` between two
 *      digits is a decimal point and stays (`3.5`, `1.2.3`); a `,` followed
 *      by exactly three digits is a thousands separator (`1,250`,
 *      `10,000,000`); any other `.` or `,` ends the number (`1953.` gives
 *      `1953`, `3,5` gives `3` and `5`);
 *    - one Han, Hiragana or Katakana character (these scripts do not put
 *      spaces between words, so each character is searched on its own);
 *    - an *abbreviation* (`abbreviations: keep`, the default): two or more
 *      words of one character each, joined by single dots (`e.g.` gives
 *      `e.g`, `U.S.A.` gives `u.s.a`; the dot after the last letter is not
 *      part of it, since it may end the sentence). With `abbreviations:
 *      split` the dots separate (`e`, `g`). `ph.d.` is no abbreviation by
 *      this rule (`ph` is two letters): it gives `ph` and `d`.
 *
 *    Everything else separates tokens: spaces, punctuation, symbols, emoji,
 *    hyphens (`state-of-the-art` gives four tokens) and the change between
 *    letters and ASCII digits (`828m` gives `828` and `m`; `covid19` gives
 *    `covid` and `19`), so a figure written next to its unit is still found.
 * 3. **Clean**: apostrophes and thousands separators are removed
 *    (`don't` -> `dont`, `1,250` -> `1250`, `eiffel's` -> `eiffels`).
 * 4. **Stopwords** (`stopwords: english`, the default; `none` keeps every
 *    token): a token in {@link STOPWORDS} (a short list of English function
 *    words and question words) is dropped. **Single letters**
 *    (`single_letters: drop`, the default; `keep` indexes them): a word of
 *    one character (`I`, the `x` of `x-ray`, the `m` of `828m`, initials) is
 *    dropped too; numbers (`7`) and Han, Hiragana or Katakana characters are
 *    not letters by this rule and stay.
 * 5. **Stemming** (`stemmer:`), on tokens that start with a letter and are
 *    not abbreviations (`u.s` stays `u.s`):
 *    - `snowball` (the default): the Snowball English ("Porter2") stemmer,
 *      from the `porter2` npm package, kept as an ES module in
 *      `lib/vendor/porter2/` (checked against published Snowball stems in a
 *      test): `connections` -> `connect`, `generously` ->
 *      `generous`, `flows`/`flowing` -> `flow`;
 *    - `plural` (tokens of four or more characters only; Lucene's "English
 *      minimal stemmer", after Harman 1991): `-ies` becomes `-y` (`cities` ->
 *      `city`); tokens ending in `-us`, `-ss`, `-aies`, `-eies`, `-aes`,
 *      `-ees` or `-oes` are kept; any other final `-s` is dropped (`towers`
 *      -> `tower`, `metres` -> `metre`, `eiffels` -> `eiffel`);
 *    - `none`: the token as cleaned.
 *    No accent folding (`café` and `cafe` differ).
 *
 * The result depends on nothing but the input text and the {@link Analysis}
 * (stemmer, stopwords, abbreviations, single letters): no locale, no state.
 * With `abbreviations: split` and `single_letters: keep` the rule is the one
 * ragbench used before both options existed ({@link LEGACY_ANALYSIS}).
 *
 * {@link tokenize} applies the rule to a query or any text. An index build
 * uses `TermInterner` (term_interner.ts), which gives the same terms as
 * numbers without making a string per token (tests hold the two to the same
 * output).
 *
 * @module
 */

import { stem as porter2 } from "../vendor/porter2/stem.js";

/**
 * Words removed from documents and queries: Lucene's default English
 * stopword set without `no` and `not` (negation matters), plus question words
 * and a few auxiliaries, so "What is the height of ..." searches for "height".
 * Compared after normalising and removing apostrophes, before stemming.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "been",
  "but",
  "by",
  "did",
  "do",
  "does",
  "for",
  "from",
  "had",
  "has",
  "have",
  "how",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "of",
  "on",
  "or",
  "such",
  "that",
  "the",
  "their",
  "then",
  "there",
  "these",
  "they",
  "this",
  "those",
  "to",
  "was",
  "were",
  "what",
  "when",
  "where",
  "which",
  "who",
  "whom",
  "whose",
  "why",
  "will",
  "with",
]);

/**
 * {@link STOPWORDS} by length: `Set.has` with a string made moments ago costs ~0.35 µs in V8
 * (measured in Deno 2.9.6: 300k new surface forms of an index build, 0.1 s), comparing a
 * word with the few stopwords of its length ~0.05 µs.
 */
const STOPWORDS_BY_LENGTH: readonly (readonly string[])[] = (() => {
  const byLength: string[][] = [];
  for (const word of STOPWORDS) (byLength[word.length] ??= []).push(word);
  for (let n = 0; n < byLength.length; n++) byLength[n] ??= [];
  return byLength;
})();

/** Whether `word` (cleaned, lower-case) is in {@link STOPWORDS}. */
export function isStopword(word: string): boolean {
  return word.length < STOPWORDS_BY_LENGTH.length &&
    STOPWORDS_BY_LENGTH[word.length].includes(word);
}

/** The choices of steps 2, 4 and 5 (a retriever's `bm25:` settings). */
export interface Analysis {
  stemmer: "snowball" | "plural" | "none";
  stopwords: "english" | "none";
  /** `keep`: letter-dot abbreviations are one token (`u.s`); `split`: the dots separate. */
  abbreviations: "keep" | "split";
  /** `drop`: words of one character are not indexed nor searched; `keep`: they are. */
  singleLetters: "drop" | "keep";
}

/**
 * The default analysis: English stopwords, Snowball stemming, abbreviations
 * kept whole, single letters dropped (chosen on Cranfield, MED and NPL:
 * `scripts/eval_beir.ts --ablation` prints what each buys).
 */
export const DEFAULT_ANALYSIS: Readonly<Analysis> = Object.freeze({
  stemmer: "snowball",
  stopwords: "english",
  abbreviations: "keep",
  singleLetters: "drop",
});

/**
 * The rule before `abbreviations` and `single_letters` existed (dots split,
 * single letters indexed), with English stopwords and Snowball stemming: what
 * the offline hashing embedder keeps using, so its vectors do not change.
 */
export const LEGACY_ANALYSIS: Readonly<Analysis> = Object.freeze({
  stemmer: "snowball",
  stopwords: "english",
  abbreviations: "split",
  singleLetters: "keep",
});

/** Step 1 of the rule: NFKC, then lower-case. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

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

const APOSTROPHES = /['\u2019]/g;

/** Whether `surface` (a token of {@link scanSpans}) is a word of one character. */
export function isSingleLetter(surface: string): boolean {
  const n = surface.length;
  if (n === 1) return (classAt(surface, 0) & ~WIDE) === WORD;
  return n === 2 && classAt(surface, 0) === (WORD | WIDE);
}

/**
 * Steps 3 to 5 of the rule for one surface form found by {@link scanSpans}:
 * the term it is indexed and searched as, or `null` for a stopword (or a
 * single letter, when they are dropped).
 */
export function termOfSurface(
  surface: string,
  analysis: Readonly<Analysis> = DEFAULT_ANALYSIS,
): string | null {
  if (surface.length <= 2 && analysis.singleLetters === "drop" && isSingleLetter(surface)) {
    return null;
  }
  let word = surface;
  if (word.includes("'") || word.includes("\u2019")) word = word.replace(APOSTROPHES, "");
  if (word.includes(",")) word = word.replaceAll(",", "");
  if (analysis.stopwords === "english" && isStopword(word)) return null;
  const first = word.charCodeAt(0);
  // Numbers, and abbreviations (the only words holding a dot), are not stemmed.
  if ((first >= 48 && first <= 57) || word.includes(".")) return word;
  if (analysis.stemmer === "snowball") return snowballStem(word);
  if (analysis.stemmer === "plural") return pluralStem(word);
  return word;
}

/** The Snowball English (Porter2) stem of a lower-case word. */
export function snowballStem(word: string): string {
  return porter2(word);
}

/** Step 5: the light plural rule (see the module documentation). */
export function pluralStem(word: string): string {
  const n = word.length;
  if (n < 4 || word.charCodeAt(n - 1) !== 115 /* s */) return word;
  const before = word[n - 2];
  if (before === "u" || before === "s") return word;
  if (before === "e") {
    const third = word[n - 3];
    if (third === "i") {
      const fourth = word[n - 4];
      return fourth === "a" || fourth === "e" ? word : word.slice(0, n - 3) + "y";
    }
    if (third === "a" || third === "o" || third === "e") return word;
  }
  return word.slice(0, n - 1);
}

const sharedSpans = new SpanBuffer();

/**
 * The terms of `text` in order, by the rule in the module documentation:
 * normalised, split, cleaned, stopwords removed and stemmed as `analysis`
 * says (default {@link DEFAULT_ANALYSIS}). Repeated words repeat. An empty
 * array means nothing searchable.
 */
export function tokenize(text: string, analysis: Readonly<Analysis> = DEFAULT_ANALYSIS): string[] {
  const normalized = normalizeText(text);
  const count = scanSpans(normalized, sharedSpans, analysis.abbreviations === "keep");
  const terms: string[] = [];
  for (let t = 0; t < count; t++) {
    const surface = normalized.slice(sharedSpans.starts[t], sharedSpans.ends[t]);
    const term = termOfSurface(surface, analysis);
    if (term !== null) terms.push(term);
  }
  return terms;
}
