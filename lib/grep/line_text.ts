/**
 * Reading a line store (line_store.ts): where a line is, its full text, and
 * the string forms of a segment's text that some scans need.
 *
 * @module
 */

import { decodeRange, SCAN_CHARS, type SharedText } from "./shared_text.ts";
import type { ByteSegment, LineRange, LineStore, TextSegment } from "./line_store_types.ts";

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
