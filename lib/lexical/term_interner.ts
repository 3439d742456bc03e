/**
 * Term ids for building a lexical index: {@link TermInterner} turns texts into
 * the ids of their terms (by the rule of tokenizer.ts) without making a string
 * per token, and {@link TermDictionary} maps a term back to its id when the
 * built index is searched.
 *
 * Both rest on one hash table keyed by UTF-16 units, which can be looked up
 * with a range of a string or of ASCII bytes, so a lookup allocates nothing.
 *
 * @module
 */

import { type Analysis, DEFAULT_ANALYSIS, normalizeText, termOfSurface } from "./tokenizer.ts";
import { APOS, DIGIT, scanSpans, SpanBuffer, UNIT_CLASS, WORD } from "./token_spans.ts";
import { lowerLatin1, TokenKernel } from "./token_kernel.ts";
import {
  finishHash,
  FNV_OFFSET,
  FNV_PRIME,
  hashRange,
  MISSING,
  UnitTable,
  type UnitTableImage,
} from "./unit_table.ts";

/** Value of a surface form that is a stopword. */
const STOP_ID = -1;

function isDigitByte(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether ASCII byte `j` of `bytes[..n)` continues a word (a letter, or an apostrophe before one). */
function continuesWord(bytes: Uint8Array, j: number, n: number): boolean {
  if (j >= n) return false;
  const k = UNIT_CLASS[bytes[j]];
  return k === WORD || (k === APOS && j + 1 < n && UNIT_CLASS[bytes[j + 1]] === WORD);
}

/** Term -> id, for searching a built index (see {@link TermInterner.dictionary}). */
export class TermDictionary {
  #table = new UnitTable();

  /**
   * A dictionary over a saved table (see {@link UnitTable.fromImage}, whose checks it runs);
   * term ids must be below `terms`.
   *
   * @throws {RangeError} when the image is damaged.
   */
  static fromImage(image: UnitTableImage, terms: number): TermDictionary {
    const dictionary = new TermDictionary();
    dictionary.#table = UnitTable.fromImage(image, terms - 1);
    return dictionary;
  }

  /** The table's arrays (not copies), for saving an index. */
  image(): UnitTableImage {
    return this.#table.image();
  }

  /** Distinct terms. */
  get size(): number {
    return this.#table.size;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#table.bytes;
  }

  /** The id of `term`, or `undefined` when the index never saw it. */
  idOf(term: string): number | undefined {
    const id = this.#table.get(term);
    return id === MISSING ? undefined : id;
  }

  /** @internal Adds a term not present yet; used by {@link TermInterner}. */
  add(term: string, h: number, id: number): void {
    this.#table.insert(term, h, id);
  }

  /** @internal The id of `term` whose hash is `h`, or MISSING. */
  find(term: string, h: number): number {
    return this.#table.findString(term, 0, term.length, h);
  }
}

/**
 * Turns texts into term ids for building an index, without allocating a
 * string per token: gives exactly the terms of `tokenize` (tokenizer.ts; a
 * test checks this), numbered from 0 in order of first appearance.
 *
 * How: every surface form seen so far is kept in a hash table keyed by its
 * characters, mapping to its term id or to "stopword", so the rule's steps
 * 3-5 run once per distinct surface form. Pure-ASCII texts (detected with
 * `TextEncoder.encodeInto`, which writes one byte per character exactly when
 * all are ASCII) skip NFKC and lower-casing, which change nothing there but
 * A-Z, and are split, lower-cased, hashed and looked up as bytes by the
 * WebAssembly SIMD kernel of token_kernel.ts, whose own table holds their
 * surface forms (a form comes back here only when it is new); with
 * `kernel: false`, by a fused JavaScript loop over this class's table, which
 * gives the same ids (tests hold the two together). Other texts go through
 * {@link normalizeText} and {@link scanSpans}. Stemming (Snowball's many
 * suffix rules) therefore costs once per distinct surface form, not once per
 * token.
 */
export class TermInterner {
  /** Term -> id of every term seen. */
  readonly dictionary: TermDictionary = new TermDictionary();
  /** Id -> term. */
  readonly terms: string[] = [];
  #surfaces = new UnitTable();
  #encoder = new TextEncoder();
  #bytes = new Uint8Array(1 << 16);
  #spans = new SpanBuffer(1024);
  #out = new Int32Array(1024);
  #analysis: Readonly<Analysis>;
  #abbreviations: boolean;

  #kernel: TokenKernel | null = null;
  #useKernel: boolean;
  #learnSurface = (surface: string): number => this.#termIdOf(surface, undefined);

  /**
   * An interner applying `analysis` (stopwords, stemmer) in steps 4 and 5.
   *
   * @internal `options.kernel: false` keeps ASCII texts on the JavaScript scan instead of the
   * WebAssembly kernel (token_kernel.ts), so tests and benchmarks can hold the two to the same
   * ids.
   */
  constructor(analysis: Readonly<Analysis> = DEFAULT_ANALYSIS, options: { kernel?: boolean } = {}) {
    this.#analysis = analysis;
    this.#abbreviations = analysis.abbreviations === "keep";
    this.#useKernel = options.kernel ?? true;
  }

  /**
   * {@link forgetSurfaces}, handing over the memory the ASCII surface forms took (the
   * kernel's, see `TokenKernel.retire`) as a buffer of at least `bytes` bytes whose contents
   * are garbage; `null` when there is none to hand over (no text was seen, the kernel is off, or
   * its memory cannot grow that far), and then the caller allocates as usual.
   */
  recycleSurfaces(bytes: number): ArrayBufferLike | null {
    const buffer = this.#kernel?.retire(bytes) ?? null;
    this.forgetSurfaces();
    return buffer;
  }

  /**
   * Forgets the surface forms seen so far and frees their table at once (an index build calls
   * this when its texts are done, so the table is not part of its peak memory). Later calls
   * still work, learning the forms again.
   */
  forgetSurfaces(): void {
    this.#surfaces.clear();
    // The kernel's memory cannot be freed in place: dropped, it goes with the next collection.
    this.#kernel = null;
  }

  /**
   * The term ids of `text` in order, stopwords skipped, as a view of an
   * internal buffer that the next call overwrites.
   */
  termIds(text: string): Int32Array {
    if (this.#useKernel) {
      this.#kernel ??= new TokenKernel(this.#learnSurface, {
        abbreviations: this.#abbreviations,
      });
      const ids = this.#kernel.ids(text);
      return ids ?? this.#out.subarray(0, this.#unicodeIds(normalizeText(text)));
    }
    const n = text.length;
    if (n * 3 > this.#bytes.length) this.#bytes = new Uint8Array(n * 3 + 1024);
    const written = this.#encoder.encodeInto(text, this.#bytes).written;
    const count = written === n ? this.#asciiIds(n) : this.#unicodeIds(normalizeText(text));
    return this.#out.subarray(0, count);
  }

  /** Steps 2-5 of the rule over the ASCII bytes in `#bytes[0..n)`, fused. */
  #asciiIds(n: number): number {
    const bytes = this.#bytes;
    const surfaces = this.#surfaces;
    let out = this.#out;
    let count = 0;
    let i = 0;
    while (i < n) {
      let c = bytes[i];
      const k = UNIT_CLASS[c];
      if (k !== WORD && k !== DIGIT) {
        i++;
        continue;
      }
      const s = i;
      let h = FNV_OFFSET;
      if (k === WORD) {
        for (;;) {
          h = Math.imul(h ^ (c | 32), FNV_PRIME);
          if (++i >= n) break;
          c = bytes[i];
          const next = UNIT_CLASS[c];
          if (next === WORD) continue;
          if (next !== APOS || i + 1 >= n || UNIT_CLASS[bytes[i + 1]] !== WORD) break;
          h = Math.imul(h ^ c, FNV_PRIME);
          c = bytes[++i];
        }
        // An abbreviation: one letter, then ".x" pairs whose letter is a word of its own.
        if (i - s === 1 && this.#abbreviations) {
          while (
            i + 1 < n && bytes[i] === 46 && UNIT_CLASS[bytes[i + 1]] === WORD &&
            !continuesWord(bytes, i + 2, n)
          ) {
            h = Math.imul(Math.imul(h ^ 46, FNV_PRIME) ^ (bytes[i + 1] | 32), FNV_PRIME);
            i += 2;
          }
        }
      } else {
        for (;;) {
          h = Math.imul(h ^ c, FNV_PRIME);
          if (++i >= n) break;
          c = bytes[i];
          if (c >= 48 && c <= 57) continue;
          if (c === 46) {
            if (i + 1 >= n || !isDigitByte(bytes[i + 1])) break;
          } else if (c === 44) {
            if (
              i + 3 >= n || !isDigitByte(bytes[i + 1]) || !isDigitByte(bytes[i + 2]) ||
              !isDigitByte(bytes[i + 3]) || (i + 4 < n && isDigitByte(bytes[i + 4]))
            ) break;
          } else break;
          h = Math.imul(h ^ c, FNV_PRIME);
          c = bytes[++i];
        }
      }
      h = finishHash(h);
      let id = surfaces.findBytes(bytes, s, i, h);
      if (id === MISSING) id = this.#learn(lowerLatin1(bytes, s, i), h);
      if (id === STOP_ID) continue;
      if (count === out.length) out = this.#growOut();
      out[count++] = id;
    }
    return count;
  }

  /** Steps 2-5 of the rule over an already normalised text. */
  #unicodeIds(text: string): number {
    const spans = this.#spans;
    const found = scanSpans(text, spans, this.#abbreviations);
    const surfaces = this.#surfaces;
    let out = this.#out;
    let count = 0;
    for (let t = 0; t < found; t++) {
      const s = spans.starts[t];
      const e = spans.ends[t];
      const h = hashRange(text, s, e);
      let id = surfaces.findString(text, s, e, h);
      if (id === MISSING) id = this.#learn(text.slice(s, e), h);
      if (id === STOP_ID) continue;
      if (count === out.length) out = this.#growOut();
      out[count++] = id;
    }
    return count;
  }

  #growOut(): Int32Array<ArrayBuffer> {
    const bigger = new Int32Array(this.#out.length * 2);
    bigger.set(this.#out);
    this.#out = bigger;
    return bigger;
  }

  /** Runs steps 3-5 on a new surface form (FNV hash `h`) and remembers the outcome. */
  #learn(surface: string, h: number): number {
    const id = this.#termIdOf(surface, h);
    this.#surfaces.insert(surface, h, id);
    return id;
  }

  /**
   * Steps 3-5 for a surface form: its term's id (a new id for a new term), or STOP_ID.
   * `h` is the surface's FNV hash when known (it is the term's when nothing changes it).
   */
  #termIdOf(surface: string, h: number | undefined): number {
    const term = termOfSurface(surface, this.#analysis);
    if (term === null) return STOP_ID;
    const th = term === surface && h !== undefined ? h : hashRange(term, 0, term.length);
    let id = this.dictionary.find(term, th);
    if (id === MISSING) {
      id = this.terms.length;
      this.terms.push(term);
      this.dictionary.add(term, th, id);
    }
    return id;
  }
}
