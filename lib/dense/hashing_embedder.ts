/**
 * The offline embedder `hashing`: deterministic feature hashing of a text's
 * words and character n-grams into a fixed number of dimensions. No model,
 * no network and no cache (it costs nothing to recompute, and uncached it
 * keeps `--mock` runs free of disk and environment access).
 *
 * What it is, honestly: a *lexical* stand-in for a real embedding model. Two
 * texts are similar when they share words (after ragbench's tokenizer:
 * lower case, stopwords dropped, plurals folded) or pieces of words (the
 * character trigrams catch "aerodynamic" against "aerodynamics", and some
 * misspellings). It knows nothing of meaning: "car" and "automobile" are
 * unrelated to it. Use it to exercise vector and hybrid retrieval offline
 * (`--mock`, the bundled configs, tests), never as evidence of what a dense
 * retriever would score.
 *
 * The rule: every token `t` of `tokenize(text, LEGACY_ANALYSIS)` (Snowball
 * stemming, English stopwords, dots split, single letters kept) adds weight 1 to feature
 * `w:t`, and every trigram of `<t>` (the token between boundary marks) adds
 * 0.5 to feature `c:<trigram>`. A feature goes to bucket
 * `h mod dimensions` with sign `+` or `-` (from another bit of `h`), where
 * `h` is FNV-1a 32 of the feature's UTF-16 units mixed by MurmurHash3's
 * finaliser; signed buckets make collisions cancel on average instead of
 * piling up. The vector is then L2-normalised; a text with no tokens gives
 * the zero vector. Query and passage prefixes are not applied (they would add
 * the same words to every text).
 *
 * @module
 */

import { LEGACY_ANALYSIS, tokenize } from "../lexical/tokenizer.ts";
import type { Embedder, Embeddings } from "./embedder.ts";

/** Dimensions used when the config sets none. */
export const HASHING_DEFAULT_DIMENSIONS = 384;
/** Weight of a whole-word feature. */
const WORD_WEIGHT = 1;
/** Weight of a character-trigram feature. */
const TRIGRAM_WEIGHT = 0.5;

/**
 * The hashing embedder with `dimensions` buckets (default 384). Its id is
 * `hashing:v1:<dimensions>` (the version changes if the rule ever does).
 *
 * @throws {RangeError} when `dimensions` is not a whole number from 1 to 16384.
 */
export function createHashingEmbedder(dimensions = HASHING_DEFAULT_DIMENSIONS): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16_384) {
    throw new RangeError(`dimensions must be a whole number from 1 to 16384, got ${dimensions}`);
  }
  return {
    id: `hashing:v1:${dimensions}`,
    embed(texts, options): Promise<Embeddings> {
      if (options.signal.aborted) return Promise.reject(options.signal.reason);
      const vectors = new Float32Array(texts.length * dimensions);
      for (let i = 0; i < texts.length; i++) {
        hashInto(texts[i], vectors.subarray(i * dimensions, (i + 1) * dimensions));
      }
      return Promise.resolve({ vectors, dimensions, tokens: 0, cost_usd: 0, cached: 0 });
    },
  };
}

/** Writes the normalised hashed features of `text` into `out` (zeroed by the caller). */
export function hashInto(text: string, out: Float32Array): void {
  const d = out.length;
  const acc = new Float64Array(d);
  // The tokenizer rule as it was when this embedder's rule was fixed (`v1`): a change of the
  // BM25 defaults must not change its vectors.
  for (const token of tokenize(text, LEGACY_ANALYSIS)) {
    add(acc, featureHash("w:", token, 0, token.length), WORD_WEIGHT);
    const marked = `<${token}>`;
    for (let i = 0; i + 3 <= marked.length; i++) {
      add(acc, featureHash("c:", marked, i, i + 3), TRIGRAM_WEIGHT);
    }
  }
  let sum = 0;
  for (let j = 0; j < d; j++) sum += acc[j] * acc[j];
  if (sum === 0) return;
  const inv = 1 / Math.sqrt(sum);
  for (let j = 0; j < d; j++) out[j] = acc[j] * inv;
}

function add(acc: Float64Array, h: number, weight: number): void {
  const bucket = (h >>> 1) % acc.length;
  acc[bucket] += (h & 1) === 0 ? weight : -weight;
}

/** FNV-1a 32 over `tag` then `text[start..end)`, mixed by MurmurHash3's fmix32. */
function featureHash(tag: string, text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < tag.length; i++) h = Math.imul(h ^ tag.charCodeAt(i), 0x01000193);
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
