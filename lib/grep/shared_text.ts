/**
 * The corpus's document text written once, as UTF-8, into shared WebAssembly
 * memories, in exactly the form `corpus_grep` scans (see line_store.ts), plus
 * the few facts that give back each document's exact text.
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

import { sharedMemory } from "./grep_kernel.ts";

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

/** Options of the builders. */
export interface SharedTextOptions {
  /** Units of document text per segment (tests lower it; default {@link SEGMENT_CHARS}). */
  segmentChars?: number;
}

const encoder = new TextEncoder();

/**
 * Writes the documents' text into shared memories, a slice at a time
 * ({@link step}), so a caller on a thread that must stay responsive can
 * yield between slices.
 */
export class SharedTextBuilder {
  readonly #texts: readonly { text: string }[];
  readonly #segmentStarts: number[];
  readonly #segmentChars: number;
  readonly #segments: SharedSegment[] = [];
  readonly #docByteStart: Uint32Array;
  readonly #docUnits: Uint32Array;
  readonly #crStart: Uint32Array;
  readonly #cutStart: Uint32Array;
  readonly #crLines: number[] = [];
  readonly #cutLines: number[] = [];
  readonly #tailUnits: number[] = [];
  readonly #tails: Uint8Array[] = [];
  readonly #tailStart: number[] = [0];
  #tailBytes = 0;
  readonly #exceptions = new Map<number, string>();
  #doc = 0;
  #segment = -1;
  #memory: WebAssembly.Memory | null = null;
  #view: Uint8Array = new Uint8Array(0);
  #pos = 0;
  #ascii = true;
  #folds = true;
  #result: SharedText | null = null;

  constructor(documents: readonly { text: string }[], options: SharedTextOptions = {}) {
    this.#texts = documents;
    this.#segmentChars = options.segmentChars ?? SEGMENT_CHARS;
    // Where each segment starts: the next one's start is found when it is opened (in a step), so
    // making a builder reads no document (the caller's thread may have a reply to serve first).
    this.#segmentStarts = [0];
    const n = documents.length;
    this.#docByteStart = sharedUint32(n);
    this.#docUnits = sharedUint32(n);
    this.#crStart = sharedUint32(n + 1);
    this.#cutStart = sharedUint32(n + 1);
  }

  /**
   * Writes documents until `deadline` (a `performance.now()` time) has passed
   * or all are written; returns true when all are.
   */
  step(deadline: number): boolean {
    const texts = this.#texts;
    while (this.#doc < texts.length) {
      if (this.#segment < 0 || this.#doc === this.#segmentStarts[this.#segment + 1]) {
        this.#openSegment();
      }
      this.#writeDocument(this.#doc);
      this.#doc++;
      if (this.#doc === this.#segmentStarts[this.#segment + 1]) this.#closeSegment();
      if ((this.#doc & 31) === 0 && performance.now() > deadline) break;
    }
    return this.#doc >= texts.length;
  }

  /**
   * The text, once {@link step} has returned true.
   *
   * @throws {Error} when documents are still to be written.
   */
  result(): SharedText {
    if (this.#result) return this.#result;
    if (this.#doc < this.#texts.length) throw new Error("the shared text is not written yet");
    const n = this.#texts.length;
    this.#crStart[n] = this.#crLines.length;
    this.#cutStart[n] = this.#cutLines.length;
    const tails = new Uint8Array(new SharedArrayBuffer(this.#tailBytes));
    let at = 0;
    for (const tail of this.#tails) {
      tails.set(tail, at);
      at += tail.length;
    }
    this.#result = {
      segments: this.#segments,
      documents: n,
      docByteStart: this.#docByteStart,
      docUnits: this.#docUnits,
      crStart: this.#crStart,
      crLines: sharedCopy(this.#crLines),
      cutStart: this.#cutStart,
      cutLines: sharedCopy(this.#cutLines),
      tailUnits: sharedCopy(this.#tailUnits),
      tailStart: sharedCopy(this.#tailStart),
      tails,
      exceptions: this.#exceptions,
    };
    return this.#result;
  }

  #openSegment(): void {
    this.#segment++;
    const first = this.#segmentStarts[this.#segment];
    // Whole documents, up to the segment's size (at least one, however large).
    const texts = this.#texts;
    let units = texts[first].text.length + 1;
    let end = first + 1;
    while (end < texts.length) {
      const size = texts[end].text.length + 1;
      if (units + size > this.#segmentChars) break;
      units += size;
      end++;
    }
    this.#segmentStarts.push(end);
    // A first guess of one byte a unit (exact for ASCII); UTF-8 needs at most three.
    this.#memory = sharedMemory(units, 3 * units);
    this.#view = new Uint8Array(this.#memory.buffer);
    this.#pos = 0;
    this.#ascii = true;
    this.#folds = true;
  }

  #closeSegment(): void {
    this.#segments.push({
      memory: this.#memory!,
      // The last document's separator is not part of the data.
      length: this.#pos - 1,
      firstDoc: this.#segmentStarts[this.#segment],
      docEnd: this.#segmentStarts[this.#segment + 1],
      ascii: this.#ascii,
      foldsLikeLower: this.#folds,
    });
    this.#memory = null;
    this.#view = new Uint8Array(0);
  }

  #writeDocument(d: number): void {
    let text = this.#texts[d].text;
    this.#docByteStart[d] = this.#pos;
    this.#docUnits[d] = text.length;
    this.#crStart[d] = this.#crLines.length;
    this.#cutStart[d] = this.#cutLines.length;
    if (!text.isWellFormed()) {
      this.#exceptions.set(d, text);
      text = text.toWellFormed();
    }
    if (this.#folds && (text.includes("\u0130") || text.includes("\u212a"))) this.#folds = false;
    if (!text.includes("\r") && !hasLongLine(text)) this.#write(text);
    else this.#writeLines(d, text);
    this.#byte(10);
  }

  /** A document with a `\r` or a long line: line by line, recording what the scan form drops. */
  #writeLines(d: number, text: string): void {
    let start = 0;
    for (let line = 0;; line++) {
      const newline = text.indexOf("\n", start);
      const end = newline < 0 ? text.length : newline;
      const content = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      if (content < end) this.#crLines.push(line);
      if (content - start > SCAN_CHARS) {
        const cutAt = start + SCAN_CHARS;
        let scanned = text.slice(start, cutAt);
        const tail = text.slice(cutAt, content);
        if (isHighSurrogate(text.charCodeAt(cutAt - 1))) {
          // The cut splits a pair: the scan reads U+FFFD there, and UTF-8 cannot keep the halves.
          if (!this.#exceptions.has(d)) this.#exceptions.set(d, this.#texts[d].text);
          scanned = scanned.toWellFormed();
        }
        this.#write(scanned);
        this.#byte(CUT_MARK);
        this.#cutLines.push(line);
        this.#tailUnits.push(tail.length);
        if (!this.#exceptions.has(d)) {
          const bytes = encoder.encode(tail);
          this.#tails.push(bytes);
          this.#tailBytes += bytes.length;
        }
        this.#tailStart.push(this.#tailBytes);
      } else {
        this.#write(
          content === end && start === 0 && newline < 0 ? text : text.slice(start, content),
        );
      }
      if (newline < 0) return;
      this.#byte(10);
      start = newline + 1;
    }
  }

  /** Appends the UTF-8 of well-formed `text`, growing the memory when it does not fit. */
  #write(text: string): void {
    const { read, written } = encoder.encodeInto(text, this.#view.subarray(this.#pos));
    if (read < text.length) {
      this.#grow(this.#pos + utf8Length(text) + 1);
      this.#write(text);
      return;
    }
    if (written !== text.length) this.#ascii = false;
    this.#pos += written;
  }

  #byte(value: number): void {
    if (this.#pos >= this.#view.length) this.#grow(this.#pos + 1);
    this.#view[this.#pos++] = value;
  }

  #grow(bytes: number): void {
    const memory = this.#memory!;
    const pages = Math.ceil((bytes + 64) / 65536) - memory.buffer.byteLength / 65536;
    if (pages > 0) memory.grow(pages);
    this.#view = new Uint8Array(memory.buffer);
  }
}

/** Writes the documents' text into shared memories in one go (see {@link SharedTextBuilder}). */
export function buildSharedText(
  documents: readonly { text: string }[],
  options: SharedTextOptions = {},
): SharedText {
  const builder = new SharedTextBuilder(documents, options);
  builder.step(Infinity);
  return builder.result();
}

/** Whether a line of `text` is longer than {@link SCAN_CHARS} units (`\r` included: it is at most one unit). */
function hasLongLine(text: string): boolean {
  if (text.length <= SCAN_CHARS) return false;
  let start = 0;
  while (true) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    if (end - start > SCAN_CHARS) return true;
    if (newline < 0) return false;
    start = newline + 1;
  }
}

/** Bytes of the UTF-8 encoding of well-formed `text`. */
export function utf8Length(text: string): number {
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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function sharedUint32(length: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * length));
}

function sharedCopy(values: readonly number[]): Uint32Array {
  const out = sharedUint32(values.length);
  out.set(values);
  return out;
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
