/**
 * An in-memory line index of a corpus's documents, and the forms of its text
 * that the scans of `corpus_grep` search (line_scan.ts, regex_scan.ts).
 *
 * A line is the text between two `\n` of a document (a trailing `\r` is
 * dropped); line numbers start at 1 in every document; lines are numbered
 * globally in corpus order (document order, then line order), which is also
 * the order every scan reports them. Only the first {@link SCAN_CHARS}
 * characters of a line are searched; such a line is *cut*, and the scanned
 * form marks the cut so that `$` cannot match there (see shared_text.ts).
 *
 * The text itself is a {@link SharedText}: UTF-8 in shared WebAssembly
 * memories, one per segment, in the scanned form. In the sandbox worker it
 * is the one the main thread wrote ({@link useSharedText}); elsewhere (tests,
 * the in-process host) it is written from the documents on first use. The
 * index is built over it once per corpus object (cached in a WeakMap, so it
 * goes away with the corpus), at once ({@link lineStore}) or a slice at a time
 * ({@link prepareLineStore}). The plain-word byte scan (grep_kernel.ts) and
 * RE2 read the memories where they are; a scan that needs strings (a word
 * outside ASCII, a segment holding İ or the Kelvin sign) decodes a segment's
 * text on first use and keeps it.
 *
 * @module
 */

import type { Corpus, Document } from "../types.ts";
import { KernelBytes, type KernelWord, needleWords } from "./grep_kernel.ts";
import { documentBytes, SCAN_CHARS, type SharedText } from "./shared_text.ts";
import {
  buildSharedText,
  SharedTextBuilder,
  type SharedTextOptions,
} from "./shared_text_builder.ts";
import { GrowingUint32 } from "./growing_uint32.ts";
import type { ByteSegment, LineStore } from "./line_store_types.ts";
import { nextTurn } from "../util/yielder.ts";

export { CUT_MARK, SCAN_CHARS } from "./shared_text.ts";
export type { ByteSegment, LineRange, LineStore, TextSegment } from "./line_store_types.ts";
export {
  byteSegments,
  cutLinesIn,
  documentRange,
  isCut,
  lineAddress,
  lineText,
  lineTexts,
  lowerForScan,
  textSegments,
  upperBound,
} from "./line_text.ts";

const stores = new WeakMap<Corpus, LineStore>();
const building = new WeakMap<Corpus, LineStoreBuilder>();
const sharedTexts = new WeakMap<Corpus, SharedText>();

/**
 * Declares `text` to be the text of `corpus`'s documents (the sandbox worker
 * does, for the text the main thread shared): its line store is built over
 * it instead of writing the text again.
 */
export function useSharedText(corpus: Corpus, text: SharedText): void {
  if (text.documents !== corpus.documents.length) {
    throw new RangeError(
      `shared text of ${text.documents} documents for a corpus of ${corpus.documents.length}`,
    );
  }
  sharedTexts.set(corpus, text);
}

/**
 * The line index of `corpus`, built on the first call (finishing one that
 * {@link prepareLineStore} started) and cached for this corpus object.
 */
export function lineStore(corpus: Corpus): LineStore {
  let store = stores.get(corpus);
  if (store === undefined) {
    const builder = builderFor(corpus);
    builder.step(Infinity);
    store = builder.result();
    stores.set(corpus, store);
    building.delete(corpus);
  }
  return store;
}

/**
 * Builds `corpus`'s line index a slice of about `sliceMs` (8) at a time, giving
 * the event loop a turn between slices, so a thread that builds it still
 * answers its other messages (the sandbox worker serves `calculator` calls
 * meanwhile). {@link lineStore} called meanwhile finishes the build at once.
 */
export async function prepareLineStore(
  corpus: Corpus,
  options: { sliceMs?: number; signal?: AbortSignal } = {},
): Promise<LineStore> {
  const sliceMs = options.sliceMs ?? 8;
  while (!stores.has(corpus)) {
    options.signal?.throwIfAborted();
    const builder = builderFor(corpus);
    if (builder.step(performance.now() + sliceMs)) return lineStore(corpus);
    await nextTurn();
  }
  return stores.get(corpus)!;
}

function builderFor(corpus: Corpus): LineStoreBuilder {
  let builder = building.get(corpus);
  if (builder === undefined) {
    builder = new LineStoreBuilder(corpus.documents, sharedTexts.get(corpus));
    building.set(corpus, builder);
  }
  return builder;
}

/**
 * Builds the line index of `documents` at once, with no cache (see
 * {@link lineStore}). `segmentChars` (tests only) lowers the text per segment.
 */
export function buildLineStore(
  documents: readonly Document[],
  options: SharedTextOptions = {},
): LineStore {
  const builder = new LineStoreBuilder(documents, buildSharedText(documents, options));
  builder.step(Infinity);
  return builder.result();
}

/** The word the line index looks for: `\n`, alone. */
const NEWLINE: KernelWord = {
  text: "\n",
  needle: Uint8Array.of(10),
  words: needleWords(Uint8Array.of(10)),
  first: { at: 0, value: 10, mask: 0 },
  second: { at: 0, value: 10, mask: 0 },
  single: true,
  fold: false,
};

/**
 * Writes the shared text when it was not given, then indexes its lines,
 * document by document, a slice at a time.
 */
class LineStoreBuilder {
  readonly #documents: readonly Document[];
  readonly #writer: SharedTextBuilder | null;
  #text: SharedText | null;
  #doc = 0;
  #segment = -1;
  readonly #docFirstLine: Uint32Array;
  #lineStart = new GrowingUint32();
  #lineLength = new GrowingUint32();
  readonly #segmentStarts: number[] = [];
  readonly #utf8: ByteSegment[] = [];
  #byteOffsets = new GrowingUint32();
  #pointOffsets = new GrowingUint32();
  #points = 0;
  #kernel: KernelBytes | null = null;
  #result: LineStore | null = null;

  constructor(documents: readonly Document[], text: SharedText | undefined) {
    this.#documents = documents;
    this.#text = text ?? null;
    this.#writer = text === undefined ? new SharedTextBuilder(documents) : null;
    this.#docFirstLine = new Uint32Array(documents.length + 1);
  }

  /** Works until `deadline` (`performance.now()`); true when the index is complete. */
  step(deadline: number): boolean {
    if (this.#text === null) {
      if (!this.#writer!.step(deadline)) return false;
      this.#text = this.#writer!.result();
    }
    const text = this.#text;
    while (this.#doc < text.documents) {
      const segments = text.segments;
      if (this.#segment < 0 || this.#doc === segments[this.#segment].docEnd) this.#openSegment();
      this.#indexDocument(this.#doc);
      this.#doc++;
      if (this.#doc === segments[this.#segment].docEnd) this.#closeSegment();
      if ((this.#doc & 31) === 0 && performance.now() > deadline) return false;
    }
    return true;
  }

  /** The store, once {@link step} returned true. */
  result(): LineStore {
    if (this.#result) return this.#result;
    const lineCount = this.#lineStart.length;
    this.#docFirstLine[this.#documents.length] = lineCount;
    const lineLength = this.#lineLength.done();
    const cutBefore = new Uint32Array(lineCount + 1);
    for (let l = 0; l < lineCount; l++) {
      cutBefore[l + 1] = cutBefore[l] + (lineLength[l] > SCAN_CHARS ? 1 : 0);
    }
    this.#result = {
      documents: this.#documents,
      text: this.#text!,
      docFirstLine: this.#docFirstLine,
      lineStart: this.#lineStart.done(),
      lineLength,
      lineCount,
      segmentStarts: [...this.#segmentStarts, lineCount],
      cutBefore,
      forms: { utf8: this.#utf8 },
    };
    return this.#result;
  }

  #openSegment(): void {
    const segment = this.#text!.segments[++this.#segment];
    this.#segmentStarts.push(this.#lineStart.length);
    this.#kernel = new KernelBytes(segment.memory, segment.length);
    // Every array sized exactly (a SIMD count of the `\n`), so none is copied to grow or to trim.
    const lines = this.#kernel.countByte(10) + 1;
    if (this.#segment === 0) {
      let total = lines;
      for (const other of this.#text!.segments.slice(1)) {
        total += new KernelBytes(other.memory, other.length).countByte(10) + 1;
      }
      this.#lineStart = new GrowingUint32(total);
      this.#lineLength = new GrowingUint32(total);
    }
    this.#byteOffsets = new GrowingUint32(lines + 1);
    this.#pointOffsets = segment.ascii ? this.#byteOffsets : new GrowingUint32(lines + 1);
    this.#points = 0;
  }

  #closeSegment(): void {
    const segment = this.#text!.segments[this.#segment];
    this.#byteOffsets.push(segment.length + 1);
    if (!segment.ascii) this.#pointOffsets.push(this.#points);
    const byteOffsets = this.#byteOffsets.done();
    this.#utf8.push({
      firstLine: this.#segmentStarts[this.#segment],
      bytes: this.#kernel!.bytes,
      byteOffsets,
      pointOffsets: segment.ascii ? byteOffsets : this.#pointOffsets.done(),
      kernel: this.#kernel!,
      foldsLikeLower: segment.foldsLikeLower,
    });
    this.#kernel = null;
  }

  #indexDocument(d: number): void {
    const text = this.#text!;
    const segment = text.segments[this.#segment];
    const bytes = this.#kernel!.bytes;
    const { from, to } = documentBytes(text, d);
    this.#docFirstLine[d] = this.#lineStart.length;
    const cutEnd = text.cutStart[d + 1];
    const crEnd = text.crStart[d + 1];
    let cut = text.cutStart[d];
    let cr = text.crStart[d];
    let units = 0;
    let start = from;
    for (let line = 0;; line++) {
      let end = this.#kernel!.findWord(NEWLINE, start, to - 1);
      if (end < 0) end = to;
      const isCut = cut < cutEnd && text.cutLines[cut] === line;
      const scanEnd = isCut ? end - 1 : end;
      let length: number;
      if (segment.ascii) {
        length = scanEnd - start;
      } else {
        // Code points (the cut mark and the `\n` count one each), UTF-16 units.
        length = 0;
        let points = 0;
        for (let i = start; i < scanEnd; i++) {
          const b = bytes[i];
          if ((b & 0xc0) !== 0x80) {
            points++;
            length += b >= 0xf0 ? 2 : 1;
          }
        }
        this.#pointOffsets.push(this.#points);
        this.#points += points + (isCut ? 1 : 0) + 1;
      }
      if (isCut) length = SCAN_CHARS + text.tailUnits[cut++];
      this.#byteOffsets.push(start);
      this.#lineStart.push(units);
      this.#lineLength.push(length);
      units += length + 1;
      if (cr < crEnd && text.crLines[cr] === line) {
        units++;
        cr++;
      }
      if (end >= to) return;
      start = end + 1;
    }
  }
}
