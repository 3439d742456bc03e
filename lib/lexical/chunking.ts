/**
 * Cuts a corpus into the passages a retriever ranks, as a retriever's
 * `chunk: {size, overlap, unit}` says.
 *
 * - `unit: words`, `overlap: 0` (the default, with `size: 200`): the
 *   sentence- and paragraph-aware rule of `passages.ts`, with `size` as its
 *   longest passage and `size / 2` (rounded down) as the length at which a
 *   paragraph end closes a passage. At the defaults these are exactly the
 *   passages the `search` tool has always ranked.
 * - Any other setting: fixed windows over the document's words. A window
 *   takes words while their total stays within `size`; the next window
 *   starts with the last words of the previous one, as many as fit in
 *   `overlap` (always at least one new word per window), so every word is in
 *   at least one passage and consecutive passages share about `overlap`
 *   units. A document that fits in one window is one passage.
 *
 * Units: a *word* is a run of non-space characters, or one Han, Hiragana or
 * Katakana character. With `unit: tokens`, each word counts as
 * `ceil(characters / 4)` tokens, at least 1 (the same one-token-per-four-
 * characters estimate the mock model reports); that approximates what an
 * embedding model's tokenizer counts for English text without depending on
 * any particular tokenizer.
 *
 * Passage ids are `"<doc_id>#<n>"`, `n` counting from 0 in document order:
 * they are stable as long as the document text and the chunk settings are.
 * A document with no text is one empty passage, so its title can be found.
 * A document of pages (a PDF) is cut page by page, either way: no passage
 * spans two pages, and each carries its page number (see `passages.ts`).
 *
 * @module
 */

import type { ChunkConfig } from "./chunk_config.ts";
import type { Corpus, Document } from "../types.ts";
import { isIdeograph, isSpace, type Passage, passagesOf, splitPages } from "./passages.ts";

/** The passage rule of today's `search` tool: 200 words, no overlap. */
export const DEFAULT_CHUNK: Readonly<ChunkConfig> = Object.freeze({
  size: 200,
  overlap: 0,
  unit: "words",
});

/**
 * The passages of every document of `corpus`, in corpus order, by the rule
 * in the module documentation.
 *
 * @throws {RangeError} when `size` < 1 or `overlap` is not below `size`.
 */
export function chunkCorpus(
  corpus: Corpus | readonly Document[],
  chunk: Readonly<ChunkConfig> = DEFAULT_CHUNK,
): Passage[] {
  if (!Number.isInteger(chunk.size) || chunk.size < 1) {
    throw new RangeError(`chunk size must be a whole number >= 1, got ${chunk.size}.`);
  }
  if (!Number.isInteger(chunk.overlap) || chunk.overlap < 0 || chunk.overlap >= chunk.size) {
    throw new RangeError(`chunk overlap must be from 0 to size - 1, got ${chunk.overlap}.`);
  }
  if (chunk.unit === "words" && chunk.overlap === 0) {
    return passagesOf(corpus, { maxWords: chunk.size, minWords: Math.floor(chunk.size / 2) });
  }
  const documents = Array.isArray(corpus) ? corpus : (corpus as Corpus).documents;
  const out: Passage[] = [];
  for (const doc of documents) {
    for (const passage of windowsOf(doc, chunk)) out.push(passage);
  }
  return out;
}

/** The words of `text` as parallel arrays of start, end (exclusive) and weight. */
function wordsOf(text: string, tokens: boolean) {
  const starts: number[] = [];
  const ends: number[] = [];
  const weights: number[] = [];
  let start = -1;
  const close = (end: number) => {
    if (start < 0) return;
    starts.push(start);
    ends.push(end);
    weights.push(tokens ? Math.max(1, Math.ceil((end - start) / 4)) : 1);
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32 || (c > 127 && isSpace(c))) close(i);
    else if (c >= 0x3040 && isIdeograph(c)) {
      close(i);
      start = i;
      close(i + 1);
    } else if (start < 0) start = i;
  }
  close(text.length);
  return { starts, ends, weights };
}

/** Fixed windows of `chunk.size` units with `chunk.overlap` units shared. */
function windowsOf(doc: Document, chunk: Readonly<ChunkConfig>): Passage[] {
  if (doc.pages !== undefined && doc.pages.length > 0) {
    return splitPages(doc, (page) => windowsOf(page, chunk));
  }
  const { starts, ends, weights } = wordsOf(doc.text, chunk.unit === "tokens");
  const n = starts.length;
  if (n === 0) return [passageOf(doc, 0, "")];
  const out: Passage[] = [];
  let i = 0;
  while (i < n) {
    let j = i;
    let size = 0;
    while (j < n && (j === i || size + weights[j] <= chunk.size)) size += weights[j++];
    out.push(passageOf(doc, out.length, doc.text.slice(starts[i], ends[j - 1])));
    if (j >= n) break;
    let next = j;
    let shared = 0;
    while (next - 1 > i && shared + weights[next - 1] <= chunk.overlap) shared += weights[--next];
    i = next;
  }
  return out;
}

function passageOf(doc: Document, index: number, text: string): Passage {
  return { id: `${doc.id}#${index}`, doc_id: doc.id, index, title: doc.title, text };
}
