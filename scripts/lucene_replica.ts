/**
 * An emulation of the Lucene peers of the shared collections' READMEs
 * (Lucene 8.7's BM25 with Anserini's English analysis), so that ragbench can
 * be compared with them query by query (`scripts/eval_beir.ts
 * --length-study`): the READMEs give only their mean figures.
 *
 * - Analysis: lower-case; tokens split as ragbench's span scanner splits
 *   them (`lib/lexical/token_spans.ts`, letter-dot abbreviations kept whole),
 *   which is what Lucene's StandardTokenizer does on these collections' words
 *   except where letters and digits touch (`828m`: one token in Lucene, two
 *   here); a final `'s` removed (EnglishPossessiveFilter); Lucene's 33 English
 *   stopwords ({@link LUCENE_STOPWORDS}, with `no` and `not`) removed; every
 *   token stemmed by Porter's stemmer (`porter_stemmer.ts`); single letters
 *   kept.
 * - Scoring: BM25 with Lucene's idf, each query token one clause (a word the
 *   query repeats counts each time), and Lucene 8's one-byte document
 *   lengths ({@link luceneLength}); Lucene 8 drops BM25's `(k1 + 1)` factor,
 *   which changes no ranking.
 *
 * The emulation reproduces the READMEs' Lucene figures (the study prints both).
 *
 * @module
 */

import { normalizeText } from "../lib/lexical/tokenizer.ts";
import { scanSpans, SpanBuffer } from "../lib/lexical/token_spans.ts";
import { porterStem } from "./porter_stemmer.ts";

/** Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (Anserini's default stopwords). */
export const LUCENE_STOPWORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be but by for if in into is it no not of on or such that the their " +
    "then there these they this to was will with").split(" "),
);

const spans = new SpanBuffer();

/** The terms of `text` under the emulated Lucene analysis (see the module documentation). */
export function luceneTerms(text: string): string[] {
  const normalized = normalizeText(text);
  const count = scanSpans(normalized, spans, true);
  const terms: string[] = [];
  for (let t = 0; t < count; t++) {
    let token = normalized.slice(spans.starts[t], spans.ends[t]);
    if (/['\u2019]s$/.test(token)) token = token.slice(0, -2);
    if (token === "" || LUCENE_STOPWORDS.has(token)) continue;
    terms.push(porterStem(token));
  }
  return terms;
}

/**
 * The document length Lucene 8's BM25 scores with: the length stored in one
 * byte (`SmallFloat.intToByte4`) and read back (`byte4ToInt`), exact below 24
 * and rounded down to 4 significant bits above.
 */
export function luceneLength(length: number): number {
  if (length < 24) return length;
  const i = length - 24;
  const bits = 32 - Math.clz32(i);
  let encoded: number;
  if (bits < 4) encoded = i;
  else {
    const shift = bits - 4;
    encoded = ((i >>> shift) & 0x07) | ((shift + 1) << 3);
  }
  const mantissa = encoded & 0x07;
  const shift = (encoded >>> 3) - 1;
  return (shift === -1 ? mantissa : (mantissa | 0x08) << shift) + 24;
}
