/**
 * The tokenizer's table of texts and the terms they must give, shared by the
 * tests of `tokenize` (tokenizer_test.ts) and of `TermInterner`
 * (term_interner_test.ts), which must give the same terms.
 *
 * Cases without an `analysis` use {@link PLURAL_ANALYSIS} (English stopwords,
 * the plural rule, dots splitting and single letters kept, as before those two
 * options existed): steps 1-3 do not depend on the stemmer, and the plural
 * rule's output is easy to read. The last cases cover the other stemmers,
 * `stopwords: none`, and abbreviations and single letters under each setting.
 *
 * @module
 */

import type { Analysis } from "../../lib/lexical/tokenizer.ts";

/** English stopwords and the plural rule: the analysis of cases that name none. */
export const PLURAL_ANALYSIS: Readonly<Analysis> = {
  stemmer: "plural",
  stopwords: "english",
  abbreviations: "split",
  singleLetters: "keep",
};

/** {@link PLURAL_ANALYSIS} with other settings. */
function plural(settings: Partial<Analysis>): Readonly<Analysis> {
  return { ...PLURAL_ANALYSIS, ...settings };
}

/** The defaults with the Snowball stemmer, abbreviations kept, single letters dropped. */
const DEFAULTS: Readonly<Analysis> = {
  stemmer: "snowball",
  stopwords: "english",
  abbreviations: "keep",
  singleLetters: "drop",
};

/** One text and the terms the tokenization rule gives for it, in order. */
export interface TokenizerCase {
  /** What the case shows, used in the test name. */
  name: string;
  /** Input text. */
  text: string;
  /** Expected terms. */
  terms: string[];
  /** Stopwords and stemmer (default {@link PLURAL_ANALYSIS}). */
  analysis?: Readonly<Analysis>;
}

/** The analysis a case is tokenized with. */
export function analysisOf(c: TokenizerCase): Readonly<Analysis> {
  return c.analysis ?? PLURAL_ANALYSIS;
}

/** Texts covering each step of the rule, with their expected terms. */
export const TOKENIZER_CASES: readonly TokenizerCase[] = [
  { name: "lower-cases", text: "Eiffel TOWER eIFFEL", terms: ["eiffel", "tower", "eiffel"] },
  {
    name: "splits on spaces, punctuation and symbols",
    text: "hello,world! (tower)\t[spire]; a/b+c=d#e@f",
    terms: ["hello", "world", "tower", "spire", "b", "c", "d", "e", "f"],
  },
  { name: "splits hyphenated words", text: "state-of-the-art", terms: ["state", "art"] },
  {
    name: "keeps apostrophes inside words and then drops them",
    text: "don't O'Neill rock'n'roll",
    terms: ["dont", "oneill", "rocknroll"],
  },
  {
    name: "treats a typographic apostrophe like a plain one",
    text: "O\u2019Neill",
    terms: ["oneill"],
  },
  {
    name: "makes a possessive the plain word (apostrophe dropped, then the plural rule)",
    text: "the Eiffel's height",
    terms: ["eiffel", "height"],
  },
  {
    name: "an apostrophe at a word edge separates",
    text: "'quoted' towers'",
    terms: ["quoted", "tower"],
  },
  { name: "a year before a full stop", text: "It opened in 1889.", terms: ["opened", "1889"] },
  { name: "keeps a decimal point", text: "3.5 km", terms: ["3.5", "km"] },
  {
    name: "removes thousands separators",
    text: "1,250 and 10,000,000",
    terms: ["1250", "10000000"],
  },
  {
    name: "a decimal with thousands separators",
    text: "8,848.86 m",
    terms: ["8848.86", "m"],
  },
  {
    name: "a comma not followed by three digits splits",
    text: "3,5 1,2345",
    terms: ["3", "5", "1", "2345"],
  },
  { name: "version numbers stay whole", text: "v1.2.3", terms: ["v", "1.2.3"] },
  { name: "a sign is not part of a number", text: "-5 +7", terms: ["5", "7"] },
  {
    name: "splits where letters meet digits",
    text: "828m COVID19 1950s",
    terms: ["828", "m", "covid", "19", "1950", "s"],
  },
  { name: "keeps accented letters", text: "Zürich Café", terms: ["zürich", "café"] },
  {
    name: "NFKC joins a letter and a combining accent into the precomposed letter",
    text: "Cafe\u0301",
    terms: ["café"],
  },
  {
    name: "NFKC folds full-width letters, ligatures and superscripts",
    text: "\uff34\uff4f\uff4b\uff59\uff4f \ufb01le m\u00b2",
    terms: ["tokyo", "file", "m", "2"],
  },
  {
    name: "each Han, Hiragana or Katakana character is a token",
    text: "東京タワー 333 m",
    terms: ["東", "京", "タ", "ワ", "ー", "333", "m"],
  },
  { name: "Greek and Cyrillic words are words", text: "Αθήνα Москва", terms: ["αθήνα", "москва"] },
  {
    name: "letters outside the Basic Multilingual Plane stay in their word",
    text: "x\u{20000}y z",
    terms: ["x", "\u{20000}", "y", "z"],
  },
  { name: "emoji separate", text: "tower😀spire", terms: ["tower", "spire"] },
  { name: "a lone surrogate separates", text: "ab\ud800cd", terms: ["ab", "cd"] },
  {
    name: "removes stopwords, including question words",
    text: "What is the height of the tower, and who built it?",
    terms: ["height", "tower", "built"],
  },
  { name: "keeps negation", text: "not no", terms: ["not", "no"] },
  { name: "a query of stopwords only has no terms", text: "The of and what is it", terms: [] },
  { name: "empty text has no terms", text: "", terms: [] },
  { name: "punctuation only has no terms", text: " ... --- !!! ", terms: [] },
  {
    name: "applies the plural rule",
    text: "cities towers metres boys",
    terms: ["city", "tower", "metre", "boy"],
  },
  {
    name: "the plural rule leaves -ss, -us, -aes/-ees/-oes, -eies/-aies and short words",
    text: "class bonus heroes trees gas yes",
    terms: ["class", "bonus", "heroes", "trees", "gas", "yes"],
  },
  {
    name: "the Snowball stemmer conflates inflections and derivations",
    text: "Connections connected flowing flows generously Eiffel's",
    terms: ["connect", "connect", "flow", "flow", "generous", "eiffel"],
    analysis: plural({ stemmer: "snowball" }),
  },
  {
    name: "the Snowball stemmer leaves numbers alone",
    text: "1950s 3.5 1,250 news",
    terms: ["1950", "s", "3.5", "1250", "news"],
    analysis: plural({ stemmer: "snowball" }),
  },
  {
    name: "stemmer none keeps the cleaned token",
    text: "Cities towers don't",
    terms: ["cities", "towers", "dont"],
    analysis: plural({ stemmer: "none" }),
  },
  {
    name: "stopwords none keeps function words",
    text: "What is the height of it",
    terms: ["what", "is", "the", "height", "of", "it"],
    analysis: plural({ stemmer: "none", stopwords: "none" }),
  },
  {
    name: "abbreviations: keep makes letter-dot abbreviations one token, without the last dot",
    text: "e.g. the U.S.A. and i.e., U.S",
    terms: ["e.g", "u.s.a", "i.e", "u.s"],
    analysis: plural({ abbreviations: "keep" }),
  },
  {
    name: "abbreviations: keep joins only words of one letter",
    text: "Ph.D. ab.c.d o.bc x'o.b o.b'c 1o.b 3.5.x",
    terms: ["ph", "d", "ab", "c.d", "o", "bc", "xo", "b", "o", "bc", "1", "o.b", "3.5", "x"],
    analysis: plural({ abbreviations: "keep" }),
  },
  {
    name: "abbreviations: keep joins letters outside ASCII and outside the BMP",
    text: "é.g. \u{10330}.x Ü.S. \u{20000}.x",
    terms: ["é.g", "\u{10330}.x", "ü.s", "\u{20000}", "x"],
    analysis: plural({ abbreviations: "keep" }),
  },
  {
    name: "abbreviations are neither stemmed nor stopwords",
    text: "U.S. a.s. I.S.",
    terms: ["u.s", "a.s", "i.s"],
    analysis: DEFAULTS,
  },
  {
    name: "abbreviations: split (the old rule) splits at the dots",
    text: "e.g. U.S.A.",
    terms: ["e", "g", "u", "s", "a"],
    analysis: plural({ stopwords: "none" }),
  },
  {
    name: "single_letters: drop drops words of one letter, not numbers nor Han characters",
    text: "I saw x-ray 828m vitamin B 7 東 \u{20000} é \u{10330}",
    terms: ["saw", "ray", "828", "vitamin", "7", "東", "\u{20000}"],
    analysis: plural({ singleLetters: "drop" }),
  },
  {
    name: "single_letters: keep (the old rule) keeps them",
    text: "I saw x-ray 828m vitamin B 7 東 \u{20000} é \u{10330}",
    terms: [
      "i",
      "saw",
      "x",
      "ray",
      "828",
      "m",
      "vitamin",
      "b",
      "7",
      "東",
      "\u{20000}",
      "é",
      "\u{10330}",
    ],
  },
  {
    name: "the defaults drop the letters of a split abbreviation's tail and keep the rest",
    text: "E.g. the X-15 and Ph.D. theses by J. R. R. Tolkien",
    terms: ["e.g", "15", "ph", "these", "tolkien"],
    analysis: DEFAULTS,
  },
];
