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
 * Step 2 (the split) is token_spans.ts; the other steps are here.
 * {@link tokenize} applies the rule to a query or any text. An index build
 * uses `TermInterner` (term_interner.ts), which gives the same terms as
 * numbers without making a string per token (tests hold the two to the same
 * output).
 *
 * @module
 */

import { stem as porter2 } from "../vendor/porter2/stem.js";
import { isSingleLetter, scanSpans, SpanBuffer } from "./token_spans.ts";

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

const APOSTROPHES = /['\u2019]/g;

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
