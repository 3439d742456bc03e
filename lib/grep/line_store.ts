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
import {
  buildSharedText,
  decodeRange,
  documentBytes,
  SCAN_CHARS,
  type SharedText,
  SharedTextBuilder,
  type SharedTextOptions,
} from "./shared_text.ts";
import { GrowingUint32 } from "./growing_uint32.ts";
import { nextTurn } from "../util/yielder.ts";

export { CUT_MARK, SCAN_CHARS } from "./shared_text.ts";

/** The line index of one corpus. */
export interface LineStore {
  /** The corpus's documents, in corpus order. */
  readonly documents: readonly Document[];
  /** Their text, in the scanned form (shared_text.ts). */
  readonly text: SharedText;
  /** `docFirstLine[d]` is the global index of document d's first line; one extra entry at the end. */
  readonly docFirstLine: Uint32Array;
  /** UTF-16 offset of each line in its document's text. */
  readonly lineStart: Uint32Array;
  /** Length of each line in UTF-16 units (without `\r\n`). */
  readonly lineLength: Uint32Array;
  /** Lines in the corpus (global line indexes run from 0 to `lineCount - 1`). */
  readonly lineCount: number;
  /** Segment boundaries: global index of each segment's first line, plus `lineCount`. */
  readonly segmentStarts: readonly number[];
  /** `cutBefore[l]`: lines before global line l longer than {@link SCAN_CHARS}; `lineCount + 1` entries. */
  readonly cutBefore: Uint32Array;
  /** Scan forms: the UTF-8 one (the shared text) always, the string ones built on first use. */
  forms: { exact?: TextSegment[]; lower?: TextSegment[]; utf8: ByteSegment[] };
}

/** Scan text of a run of lines: `text` is the lines joined by `\n`. */
export interface TextSegment {
  /** Global index of the segment's first line. */
  firstLine: number;
  /** The scanned part of each line, joined by `\n`. */
  text: string;
  /** Start of each line in `text`, plus `text.length + 1` at the end. */
  offsets: Uint32Array;
}

/** The same as {@link TextSegment} in UTF-8, for the regex engine and the byte scan. */
export interface ByteSegment {
  /** Global index of the segment's first line. */
  firstLine: number;
  /** UTF-8 of the segment's `text` (a view of its shared memory). */
  bytes: Uint8Array;
  /** Start of each line in `bytes`, plus `bytes.length + 1`. */
  byteOffsets: Uint32Array;
  /** Start of each line in code points, plus the total + 1 (the same array when ASCII). */
  pointOffsets: Uint32Array;
  /** The SIMD pair scan over `bytes`. */
  kernel: KernelBytes;
  /**
   * The segment holds neither U+0130 (İ) nor U+212A (Kelvin sign), the only
   * characters outside ASCII whose lower case holds ASCII (and İ the only one
   * whose lower case is longer): folding ASCII letters of the bytes then
   * finds an ASCII word exactly where {@link lowerForScan} of the text does,
   * at the same UTF-16 column.
   */
  foldsLikeLower: boolean;
}

/** A range of global lines: `[from, to)`. */
export interface LineRange {
  /** First global line of the range. */
  from: number;
  /** Global line just past the range. */
  to: number;
}

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

/** Whether global line `line` is longer than {@link SCAN_CHARS} (only its start is searched). */
export function isCut(store: LineStore, line: number): boolean {
  return store.lineLength[line] > SCAN_CHARS;
}

/** Lines of `range` (default: all) longer than {@link SCAN_CHARS}. */
export function cutLinesIn(store: LineStore, range?: LineRange): number {
  const from = range?.from ?? 0;
  const to = range?.to ?? store.lineCount;
  return store.cutBefore[to] - store.cutBefore[from];
}

/** Document index and 1-based line number of a global line. */
export function lineAddress(store: LineStore, line: number): { doc: number; lineNumber: number } {
  const doc = upperBound(store.docFirstLine, line, 0, store.documents.length) - 1;
  return { doc, lineNumber: line - store.docFirstLine[doc] + 1 };
}

/** The full text of a global line (not cut to {@link SCAN_CHARS}). */
export function lineText(store: LineStore, line: number): string {
  return lineTexts(store, line, line + 1)[0];
}

/**
 * The full texts of global lines `[from, to)`, which must all be lines of one
 * document (a run `corpus_grep` prints): decoded in one piece.
 */
export function lineTexts(store: LineStore, from: number, to: number): string[] {
  if (to <= from) return [];
  const { doc } = lineAddress(store, from);
  const { text } = store;
  const exception = text.exceptions.get(doc);
  if (exception !== undefined) {
    const out: string[] = [];
    for (let line = from; line < to; line++) {
      const start = store.lineStart[line];
      out.push(exception.slice(start, start + store.lineLength[line]));
    }
    return out;
  }
  const s = upperBound(store.segmentStarts, from, 0, store.segmentStarts.length - 1) - 1;
  const segment = store.forms.utf8[s];
  const local = from - segment.firstLine;
  const start = segment.byteOffsets[local];
  const end = segment.byteOffsets[local + (to - from)] - 1;
  const lines = decodeRange(segment.bytes, start, end).split("\n");
  if (cutLinesIn(store, { from, to }) > 0) {
    const firstLineOfDoc = store.docFirstLine[doc];
    for (let line = from; line < to; line++) {
      if (!isCut(store, line)) continue;
      const cut = cutIndex(text, doc, line - firstLineOfDoc);
      const i = line - from;
      // The decoded cut mark (U+FFFD) gives way to the line's tail.
      lines[i] = lines[i].slice(0, -1) +
        decodeRange(text.tails, text.tailStart[cut], text.tailStart[cut + 1]);
    }
  }
  return lines;
}

/** Index of document `doc`'s cut line `lineInDoc` in the shared text's cut lists. */
function cutIndex(text: SharedText, doc: number, lineInDoc: number): number {
  for (let c = text.cutStart[doc]; c < text.cutStart[doc + 1]; c++) {
    if (text.cutLines[c] === lineInDoc) return c;
  }
  throw new RangeError(`line ${lineInDoc} of document ${doc} is not cut`);
}

/** All lines of document `doc` as a range. */
export function documentRange(store: LineStore, doc: number): LineRange {
  return { from: store.docFirstLine[doc], to: store.docFirstLine[doc + 1] };
}

/** Scan text of every segment, in original case or lower case. Built on first use. */
export function textSegments(store: LineStore, lowerCase: boolean): TextSegment[] {
  const key = lowerCase ? "lower" : "exact";
  let segments = store.forms[key];
  if (segments === undefined) {
    segments = store.forms.utf8.map((_, s) => {
      const exact = store.forms.exact?.[s] ?? exactSegment(store, s);
      return lowerCase ? lowerSegment(exact) : exact;
    });
    store.forms[key] = segments;
  }
  return segments;
}

/** Segment `s`'s scanned text as a string: its bytes decoded, without the cut marks. */
function exactSegment(store: LineStore, s: number): TextSegment {
  const segment = store.forms.utf8[s];
  const firstLine = segment.firstLine;
  const end = store.segmentStarts[s + 1];
  let text = decodeRange(segment.bytes, 0, segment.bytes.length);
  if (cutLinesIn(store, { from: firstLine, to: end }) > 0) {
    const lines = text.split("\n");
    for (let line = firstLine; line < end; line++) {
      // The decoded cut mark is the last character of a cut line.
      if (isCut(store, line)) lines[line - firstLine] = lines[line - firstLine].slice(0, -1);
    }
    text = lines.join("\n");
  }
  if (segment.byteOffsets === segment.pointOffsets && text.length === segment.bytes.length) {
    return { firstLine, text, offsets: segment.byteOffsets };
  }
  return { firstLine, text, offsets: lineOffsets(text, end - firstLine) };
}

/** Start of each of the `lines` lines of `text`, plus `text.length + 1`. */
function lineOffsets(text: string, lines: number): Uint32Array {
  const offsets = new Uint32Array(lines + 1);
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) {
    offsets[line++] = at + 1;
  }
  offsets[line] = text.length + 1;
  return offsets;
}

/**
 * The lower case that case-insensitive scans compare: `toLowerCase()`, with
 * final sigma (ς) read as σ so a word matches wherever it stands. Apply it to
 * the words searched for as well.
 */
export function lowerForScan(text: string): string {
  const lower = text.toLowerCase();
  return lower.includes("ς") ? lower.replaceAll("ς", "σ") : lower;
}

function lowerSegment(exact: TextSegment): TextSegment {
  const text = lowerForScan(exact.text);
  if (text.length === exact.text.length) {
    return { firstLine: exact.firstLine, text, offsets: exact.offsets };
  }
  // A few characters (e.g. U+0130) grow when lower-cased: find the line starts again.
  return { firstLine: exact.firstLine, text, offsets: lineOffsets(text, exact.offsets.length - 1) };
}

/**
 * UTF-8 form of every segment, for the regex engine and the plain-word byte
 * scan: the shared text's memories, scanned where they are. After the
 * scanned part of a cut line stands `CUT_MARK` (one byte, one code point), so
 * that a line-mode `$` means the real end of a line.
 */
export function byteSegments(store: LineStore): ByteSegment[] {
  return store.forms.utf8;
}

/**
 * First index i in [lo, hi] with `values[i] > target` (hi when none): with
 * line start offsets, `upperBound(offsets, at, lo, hi) - 1` is the line holding `at`.
 */
export function upperBound(
  values: Uint32Array | readonly number[],
  target: number,
  lo: number,
  hi: number,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
