/**
 * The shapes of a line store (line_store.ts builds it, line_text.ts reads
 * it), apart so that both can name them.
 *
 * @module
 */

import type { Document } from "../types.ts";
import type { KernelBytes } from "./grep_kernel.ts";
import type { SharedText } from "./shared_text.ts";

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
