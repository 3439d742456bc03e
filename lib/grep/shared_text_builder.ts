/**
 * Writes the corpus's text into the shared form of shared_text.ts, a slice at
 * a time or at once.
 *
 * @module
 */

import { sharedMemory } from "./grep_kernel.ts";
import {
  CUT_MARK,
  SCAN_CHARS,
  SEGMENT_CHARS,
  type SharedSegment,
  type SharedText,
} from "./shared_text.ts";

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
