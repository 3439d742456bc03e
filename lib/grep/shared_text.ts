/**
 * The corpus's document text written once, as UTF-8, into shared WebAssembly
 * memories, in exactly the form `corpus_grep` scans (see line_store.ts), plus
 * the few facts that give back each document's exact text: the form and its
 * readers here, the writer in shared_text_builder.ts.
 *
 * Why: a run keeps the corpus's text in the main thread (retrievers, prompts,
 * scoring), and the sandbox worker that runs the built-in tools needs it too.
 * Posting the documents to the worker copied all of it (at 100,000 documents
 * ~110 MB of strings, ~0.9 s of structured clone on the main thread), and the
 * worker then built a third form, the UTF-8 text its scans read. Here the main
 * thread encodes the text once (`encodeInto` straight from the documents'
 * strings, ~2 ns a character) into memories whose buffers are
 * SharedArrayBuffers; posting them to the worker shares them. The worker
 * scans them where they are (grep_kernel.ts, RE2 views) and reads documents
 * and lines out of them (`documentText`, `decodeRange`).
 *
 * Layout of a segment's data: its documents (a run of whole documents, at
 * most {@link SEGMENT_CHARS} UTF-16 units unless one document is larger),
 * each as its lines joined by `\n`, the documents joined by `\n`. A line is
 * what lies between two `\n`, less a `\r` just before the `\n` (or at the end
 * of the text); only its first {@link SCAN_CHARS} UTF-16 units are kept, and
 * a line that had more (a *cut* line) is followed by {@link CUT_MARK}. What
 * this drops is kept apart so that the exact text can be rebuilt: the line
 * numbers whose `\r` was dropped, and each cut line's rest (its *tail*,
 * UTF-8 in one shared buffer). A document that UTF-8 cannot carry exactly —
 * one with a lone surrogate, or whose surrogate pair a cut splits — is
 * written as `toWellFormed()` (lone surrogates as U+FFFD, as the scans always
 * read them) and its exact text travels as a string ({@link SharedText.exceptions}).
 *
 * @module
 */

/** Characters of a line that are searched; the rest of a long line is ignored. */
export const SCAN_CHARS = 2000;
/**
 * Byte written after the scanned part of a cut line: a lone UTF-8
 * continuation byte, which no RE2 pattern can match (`\C`, the only way, is
 * refused), so `$` (a line end) cannot match at the cut or after it. re2-wasm
 * counts it as one code point.
 */
export const CUT_MARK = 0x80;
/** Scan text per segment, in UTF-16 units of the documents (keeps strings far below V8's limit). */
export const SEGMENT_CHARS = 32 * 1024 * 1024;

/** A run of whole documents in one shared memory. */
export interface SharedSegment {
  /** The memory; its data starts at 0 (grep_kernel.ts `KernelBytes` scans it). */
  memory: WebAssembly.Memory;
  /** Bytes of data: the documents' scan form joined by `\n` (no `\n` after the last). */
  length: number;
  /** Index of the segment's first document. */
  firstDoc: number;
  /** Index just past its last document. */
  docEnd: number;
  /** Every byte of its text is ASCII (cut marks aside): bytes, code points and UTF-16 units coincide. */
  ascii: boolean;
  /**
   * Its text holds neither U+0130 (İ) nor U+212A (Kelvin sign), the only
   * characters outside ASCII whose lower case holds ASCII: folding ASCII
   * letters of the bytes then finds an ASCII word exactly where
   * `lowerForScan` of the text does.
   */
  foldsLikeLower: boolean;
}

/**
 * The corpus's text, shared. Every array is a view of a SharedArrayBuffer,
 * so a `postMessage` of this object shares it rather than copying it (only
 * `exceptions` is copied).
 */
export interface SharedText {
  /** The segments, in document order. */
  segments: SharedSegment[];
  /** Documents in the corpus. */
  documents: number;
  /** Byte offset of each document's first line in its segment's data. */
  docByteStart: Uint32Array;
  /** Exact UTF-16 length of each document's text. */
  docUnits: Uint32Array;
  /** `crLines[crStart[d] .. crStart[d + 1]]`: document d's lines (0-based) whose `\r` was dropped. */
  crStart: Uint32Array;
  crLines: Uint32Array;
  /** `cutLines[cutStart[d] .. cutStart[d + 1]]`: document d's cut lines (0-based). */
  cutStart: Uint32Array;
  cutLines: Uint32Array;
  /** UTF-16 units of each cut line's tail (same index as `cutLines`). */
  tailUnits: Uint32Array;
  /** Byte range of each cut line's tail in `tails`: `tailStart[c] .. tailStart[c + 1]`. */
  tailStart: Uint32Array;
  /** The tails, UTF-8 (empty for the tails of `exceptions`). */
  tails: Uint8Array;
  /** Documents whose exact text UTF-8 cannot carry, by index: their text. */
  exceptions: Map<number, string>;
}

const decoder = new TextDecoder();

/** The text of UTF-8 `bytes` (a view of shared memory is decoded as it is). */
export function decodeRange(bytes: Uint8Array, from: number, to: number): string {
  return from >= to ? "" : decoder.decode(bytes.subarray(from, to));
}

/** The segment holding document `d`. */
export function segmentOf(text: SharedText, d: number): SharedSegment {
  const { segments } = text;
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (segments[mid].firstDoc <= d) lo = mid;
    else hi = mid - 1;
  }
  return segments[lo];
}

/** Byte range of document `d`'s scan form in its segment's data. */
export function documentBytes(text: SharedText, d: number): { from: number; to: number } {
  const segment = segmentOf(text, d);
  const from = text.docByteStart[d];
  const to = d + 1 < segment.docEnd ? text.docByteStart[d + 1] - 1 : segment.length;
  return { from, to };
}

/** The exact text of document `d`. */
export function documentText(text: SharedText, d: number): string {
  const exception = text.exceptions.get(d);
  if (exception !== undefined) return exception;
  const segment = segmentOf(text, d);
  const bytes = new Uint8Array(segment.memory.buffer, 0, segment.length);
  const { from, to } = documentBytes(text, d);
  const crFrom = text.crStart[d];
  const crTo = text.crStart[d + 1];
  const cutFrom = text.cutStart[d];
  const cutTo = text.cutStart[d + 1];
  if (crFrom === crTo && cutFrom === cutTo) return decodeRange(bytes, from, to);
  // Line by line, putting back each dropped `\r` and each cut line's tail.
  const parts: string[] = [];
  let cr = crFrom;
  let cut = cutFrom;
  let start = from;
  for (let line = 0;; line++) {
    let end = bytes.indexOf(10, start);
    if (end < 0 || end > to) end = to;
    if (cut < cutTo && text.cutLines[cut] === line) {
      parts.push(
        decodeRange(bytes, start, end - 1) +
          decodeRange(text.tails, text.tailStart[cut], text.tailStart[cut + 1]),
      );
      cut++;
    } else {
      parts.push(decodeRange(bytes, start, end));
    }
    if (cr < crTo && text.crLines[cr] === line) {
      parts[parts.length - 1] += "\r";
      cr++;
    }
    if (end >= to) break;
    start = end + 1;
  }
  return parts.join("\n");
}
