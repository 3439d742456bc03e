/**
 * A deterministic synthetic corpus for performance benchmarks: documents of
 * lines of words drawn from a Zipf-distributed vocabulary of made-up words.
 * The default size matches DESIGN.md's measurements (100,000 documents,
 * about 110 MB of text, about 20 M words).
 *
 * @module
 */

import type { Corpus, Document } from "../lib/types.ts";
import { createRng } from "../lib/util/prng.ts";

/** Sizes of a synthetic corpus. */
export interface SyntheticOptions {
  documents?: number;
  /** Mean words per document (each document varies ±50%). */
  wordsPerDocument?: number;
  vocabulary?: number;
  /** Zipf exponent of word frequencies. */
  zipf?: number;
  seed?: number;
}

/** A seeded PRNG (mulberry32): same seed, same sequence, on every machine. */
export const prng: (seed: number) => () => number = createRng;

const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "sa",
  "ti",
  "vo",
  "ze",
  "qu",
  "br",
  "do",
  "fe",
  "ga",
  "hi",
  "jo",
  "ke",
  "lu",
  "mo",
  "ni",
  "pa",
  "ri",
  "so",
  "ta",
];

/**
 * The vocabulary: distinct made-up words, most frequent first. A word spells
 * its rank in base-24 syllables (offset by `seed`), so frequent words are
 * short, as in natural language.
 */
export function vocabulary(size: number, seed = 7): string[] {
  const words: string[] = [];
  for (let rank = 0; rank < size; rank++) {
    let n = rank;
    let word = "";
    let digit = seed;
    do {
      word += SYLLABLES[(n + digit) % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
      digit += 5;
    } while (n > 0);
    words.push(word);
  }
  return words;
}

/** A sampler of word ranks following Zipf's law (rank 0 most frequent). */
export function zipfSampler(size: number, exponent: number, random: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / Math.pow(rank + 1, exponent);
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Builds the corpus in memory. Same options, same corpus. */
export function syntheticCorpus(options: SyntheticOptions = {}): Corpus {
  const count = options.documents ?? 100_000;
  const meanWords = options.wordsPerDocument ?? 200;
  const words = vocabulary(options.vocabulary ?? 200_000, options.seed ?? 7);
  const random = prng(options.seed ?? 7);
  const sample = zipfSampler(words.length, options.zipf ?? 1.07, random);
  const documents: Document[] = [];
  for (let d = 0; d < count; d++) {
    const n = Math.max(5, Math.round(meanWords * (0.5 + random())));
    const lines: string[] = [];
    let line: string[] = [];
    let lineLength = 8 + Math.floor(random() * 16);
    for (let w = 0; w < n; w++) {
      line.push(words[sample()]);
      if (line.length >= lineLength) {
        lines.push(line.join(" ") + ".");
        line = [];
        lineLength = 8 + Math.floor(random() * 16);
      }
    }
    if (line.length) lines.push(line.join(" ") + ".");
    const id = `doc${String(d).padStart(6, "0")}`;
    documents.push({ id, title: `Document ${d}`, text: lines.join("\n"), source: `${id}.txt` });
  }
  return { documents, tables: [] };
}

/** `count` queries of 2–4 words drawn with the corpus's own word frequencies. */
export function syntheticQueries(
  count = 200,
  options: SyntheticOptions = {},
): string[] {
  const words = vocabulary(options.vocabulary ?? 200_000, options.seed ?? 7);
  const random = prng((options.seed ?? 7) + 1);
  const sample = zipfSampler(words.length, options.zipf ?? 1.07, random);
  const queries: string[] = [];
  for (let q = 0; q < count; q++) {
    const n = 2 + Math.floor(random() * 3);
    const terms: string[] = [];
    for (let i = 0; i < n; i++) terms.push(words[sample()]);
    queries.push(terms.join(" "));
  }
  return queries;
}

/** Total characters of a corpus's document text. */
export function corpusChars(corpus: Corpus): number {
  let total = 0;
  for (const d of corpus.documents) total += d.text.length;
  return total;
}

if (import.meta.main) {
  const started = performance.now();
  const corpus = syntheticCorpus();
  const chars = corpusChars(corpus);
  const distinct = new Set(vocabulary(200_000)).size;
  let words = 0;
  for (const d of corpus.documents) words += d.text.split(/[ \n]/).length;
  // deno-lint-ignore no-console
  console.log(
    `${corpus.documents.length} documents, ${(chars / 1e6).toFixed(1)} MB, ${
      (words / 1e6).toFixed(1)
    } M words, ${distinct} distinct vocabulary words, built in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s`,
  );
}
