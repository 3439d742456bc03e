/**
 * An in-memory line index of a corpus's documents, and the forms of its text
 * that the scans of `corpus_grep` search (line_scan.ts).
 *
 * A line is the text between two `\n` of a document (a trailing `\r` is
 * dropped); line numbers start at 1 in every document; lines are numbered
 * globally in corpus order (document order, then line order), which is also
 * the order every scan reports them. Only the first {@link SCAN_CHARS}
 * characters of a line are searched; such a line is *cut*, and the regex
 * form marks the cut so that `$` cannot match there (see {@link byteSegments}).
 *
 * The index is built once per corpus object (cached in a WeakMap, so it goes
 * away with the corpus). Each scan works on a form of the text built on
 * first use and kept: the lines joined by `\n` into large strings (original
 * case or lower case), or the same as UTF-8 bytes, in WebAssembly memory, for
 * the regex engine and the plain-word byte scan (grep_kernel.ts).
 * Searching one big string with `indexOf` and mapping hits back to lines by
 * binary search is several times faster than testing line by line.
 *
 * @module
 */

import type { Corpus, Document } from "../types.ts";
import { KernelBytes } from "./grep_kernel.ts";

/** Characters of a line that are searched; the rest of a long line is ignored. */
export const SCAN_CHARS = 2000;
/**
 * Byte written after the scanned part of a cut line in the regex form: a lone
 * UTF-8 continuation byte, which no RE2 pattern can match (`\C`, the only
 * way, is refused), so `$` (a line end) cannot match at the cut or after it.
 * re2-wasm counts it as one code point.
 */
export const CUT_MARK = 0x80;
/** Scan text per segment, in UTF-16 units (keeps strings far below V8's limit). */
const SEGMENT_CHARS = 32 * 1024 * 1024;

/** The line index of one corpus. */
export interface LineStore {
  /** The corpus's documents, in corpus order. */
  readonly documents: readonly Document[];
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
  /** Scan forms, built on first use. */
  forms: { exact?: TextSegment[]; lower?: TextSegment[]; utf8?: ByteSegment[] };
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
  /** UTF-8 of the segment's `text`. */
  bytes: Uint8Array;
  /** Start of each line in `bytes`, plus `bytes.length + 1`. */
  byteOffsets: Uint32Array;
  /** Start of each line in code points, plus the total + 1. */
  pointOffsets: Uint32Array;
  /** The WebAssembly memory holding `bytes`, with the SIMD pair scan over them. */
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

/** The line index of `corpus`, built on the first call and cached for this corpus object. */
export function lineStore(corpus: Corpus): LineStore {
  let store = stores.get(corpus);
  if (store === undefined) {
    store = buildLineStore(corpus.documents);
    stores.set(corpus, store);
  }
  return store;
}

/**
 * Builds the line index of `documents` (no cache; see {@link lineStore}).
 * `segmentChars` (tests only) lowers the scan text per segment.
 */
export function buildLineStore(
  documents: readonly Document[],
  options: { segmentChars?: number } = {},
): LineStore {
  const segmentLimit = options.segmentChars ?? SEGMENT_CHARS;
  const starts: number[] = [];
  const lengths: number[] = [];
  const docFirstLine = new Uint32Array(documents.length + 1);
  const segmentStarts = [0];
  let segmentChars = 0;
  for (let d = 0; d < documents.length; d++) {
    docFirstLine[d] = starts.length;
    const text = documents[d].text;
    let start = 0;
    while (true) {
      const newline = text.indexOf("\n", start);
      const end = newline < 0 ? text.length : newline;
      const length = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 - start : end - start;
      const scanned = Math.min(length, SCAN_CHARS) + 1;
      if (segmentChars + scanned > segmentLimit && segmentChars > 0) {
        segmentStarts.push(starts.length);
        segmentChars = 0;
      }
      segmentChars += scanned;
      starts.push(start);
      lengths.push(length);
      if (newline < 0) break;
      start = newline + 1;
    }
  }
  docFirstLine[documents.length] = starts.length;
  segmentStarts.push(starts.length);
  const cutBefore = new Uint32Array(lengths.length + 1);
  for (let l = 0; l < lengths.length; l++) {
    cutBefore[l + 1] = cutBefore[l] + (lengths[l] > SCAN_CHARS ? 1 : 0);
  }
  return {
    documents,
    docFirstLine,
    lineStart: Uint32Array.from(starts),
    lineLength: Uint32Array.from(lengths),
    lineCount: starts.length,
    segmentStarts,
    cutBefore,
    forms: {},
  };
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
  const { doc } = lineAddress(store, line);
  const start = store.lineStart[line];
  return store.documents[doc].text.slice(start, start + store.lineLength[line]);
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
    segments = [];
    for (let s = 0; s + 1 < store.segmentStarts.length; s++) {
      const first = store.segmentStarts[s];
      const end = store.segmentStarts[s + 1];
      const exact = store.forms.exact?.[s] ?? exactSegment(store, first, end);
      segments.push(lowerCase ? lowerSegment(exact) : exact);
    }
    store.forms[key] = segments;
  }
  return segments;
}

function exactSegment(store: LineStore, first: number, end: number): TextSegment {
  const parts: string[] = new Array(end - first);
  const offsets = new Uint32Array(end - first + 1);
  let offset = 0;
  let doc = first < end ? lineAddress(store, first).doc : 0;
  for (let line = first; line < end; line++) {
    while (store.docFirstLine[doc + 1] <= line) doc++;
    const start = store.lineStart[line];
    const length = Math.min(store.lineLength[line], SCAN_CHARS);
    parts[line - first] = store.documents[doc].text.slice(start, start + length);
    offsets[line - first] = offset;
    offset += length + 1;
  }
  offsets[end - first] = offset;
  // Lone surrogates (e.g. a pair cut at SCAN_CHARS) become U+FFFD; lengths do not change.
  return { firstLine: first, text: parts.join("\n").toWellFormed(), offsets };
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
  const offsets = new Uint32Array(exact.offsets.length);
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) {
    offsets[line++] = at + 1;
  }
  offsets[line] = text.length + 1;
  return { firstLine: exact.firstLine, text, offsets };
}

/**
 * UTF-8 form of every segment, for the regex engine and the plain-word byte
 * scan. Built on first use. Each segment's bytes live in a WebAssembly
 * memory of their own (grep_kernel.ts), so the SIMD kernel reads them where
 * they are and RE2 is handed views of them: no second copy. After the
 * scanned part of a cut line stands {@link CUT_MARK} (one byte, one code
 * point), so that a line-mode `$` means the real end of a line.
 */
export function byteSegments(store: LineStore): ByteSegment[] {
  let segments = store.forms.utf8;
  if (segments === undefined) {
    // The original-case text is only a step here: keep it only if a scan already built it.
    const exact = store.forms.exact;
    segments = store.segmentStarts.slice(0, -1).map((first, s) =>
      encodeSegment(store, exact?.[s] ?? exactSegment(store, first, store.segmentStarts[s + 1]))
    );
    store.forms.utf8 = segments;
  }
  return segments;
}

const encoder = new TextEncoder();

function encodeSegment(store: LineStore, segment: TextSegment): ByteSegment {
  const { text, offsets, firstLine } = segment;
  const lines = offsets.length - 1;
  const cuts = store.cutBefore[firstLine + lines] - store.cutBefore[firstLine];
  let ascii = false;
  // Encoded `cuts` bytes in, so the marks can be put in place moving the text down.
  const kernel = new KernelBytes(text.length + cuts, (view) => {
    const { read, written } = encoder.encodeInto(text, view.subarray(cuts));
    if (read < text.length) return utf8Length(text) + cuts;
    ascii = written === text.length;
    return written + cuts;
  });
  const bytes = kernel.bytes;
  const foldsLikeLower = !text.includes("\u0130") && !text.includes("\u212a");
  const base = { firstLine, bytes, kernel, foldsLikeLower };
  if (cuts > 0) {
    return { ...base, ...markCuts(store, firstLine, bytes, cuts, ascii, offsets.length) };
  }
  // Pure ASCII: bytes, code points and UTF-16 units coincide.
  if (ascii) return { ...base, byteOffsets: offsets, pointOffsets: offsets };
  const count = offsets.length;
  const byteOffsets = new Uint32Array(count);
  const pointOffsets = new Uint32Array(count);
  let line = 1;
  let points = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if ((b & 0xc0) !== 0x80) points++;
    if (b === 10) {
      byteOffsets[line] = i + 1;
      pointOffsets[line++] = points;
    }
  }
  byteOffsets[line] = bytes.length + 1;
  pointOffsets[line] = points + 1;
  return { ...base, byteOffsets, pointOffsets };
}

/** Bytes of the UTF-8 encoding of well-formed `text`. */
function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) length++;
    else if (c < 0x800) length += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}

/**
 * Moves the encoded text (which starts `cuts` bytes into `bytes`) down to the
 * start, writing {@link CUT_MARK} after each cut line; returns the line
 * offsets (`count` entries: lines + 1) in bytes and in code points.
 */
function markCuts(
  store: LineStore,
  firstLine: number,
  bytes: Uint8Array,
  cuts: number,
  ascii: boolean,
  count: number,
): { byteOffsets: Uint32Array; pointOffsets: Uint32Array } {
  const byteOffsets = new Uint32Array(count);
  const pointOffsets = ascii ? byteOffsets : new Uint32Array(count);
  let read = cuts;
  let out = 0;
  let points = 0;
  for (let line = 0; line + 1 < count; line++) {
    const newline = bytes.indexOf(10, read);
    const end = newline < 0 ? bytes.length : newline;
    bytes.copyWithin(out, read, end);
    if (!ascii) {
      for (let i = out; i < out + end - read; i++) if ((bytes[i] & 0xc0) !== 0x80) points++;
    }
    out += end - read;
    if (isCut(store, firstLine + line)) {
      bytes[out++] = CUT_MARK;
      points++;
    }
    if (newline >= 0) {
      bytes[out++] = 10;
      points++;
      byteOffsets[line + 1] = out;
      if (!ascii) pointOffsets[line + 1] = points;
    }
    read = end + 1;
  }
  byteOffsets[count - 1] = out + 1;
  if (!ascii) pointOffsets[count - 1] = points + 1;
  return { byteOffsets, pointOffsets };
}

/**
 * First index i in [lo, hi] with `values[i] > target` (hi when none): with
 * line start offsets, `upperBound(offsets, at, lo, hi) - 1` is the line holding `at`.
 */
export function upperBound(values: Uint32Array, target: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
