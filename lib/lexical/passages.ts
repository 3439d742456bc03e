/**
 * Cuts documents into passages, the unit that retrieval ranks and returns.
 *
 * Why passages: a ranking of whole documents favours long documents and hands
 * the model more text than it needs; a passage of 100-200 words holds one
 * fact with enough context around it to be cited.
 *
 * The rule ("words" are runs of non-space characters; each Han, Hiragana or
 * Katakana character also counts as one word, since those scripts do not
 * separate words with spaces):
 *
 * 1. A document of at most `maxWords` (200) words is one passage: its whole
 *    text, trimmed. A document with no text at all is still one (empty)
 *    passage, so its title can be found.
 * 2. A longer one is cut into *units*: paragraphs (separated by a blank
 *    line), and inside them sentences (ending with `.`, `!` or `?`, possibly
 *    followed by closing quotes or brackets, and then whitespace; or with
 *    `。`, `！`, `？`). A unit longer than `maxWords` is cut into the fewest
 *    pieces of at most `maxWords` words, of about equal size.
 * 3. Units are packed in order into `ceil(words / maxWords)` passages of
 *    about equal size: a passage is closed before a unit that would take it
 *    past `maxWords`, and after a unit once it has reached the even share, or
 *    at the end of a paragraph once it has `minWords` (100) words.
 * 4. A last passage shorter than `minWords / 2` words is joined to the one
 *    before, so a passage can reach `maxWords + minWords / 2` words.
 *
 * Passages do not overlap, and together they cover every word of the
 * document exactly once, in order. Passage text is a slice of the original
 * text (not normalised), so what a tool shows is what the document says.
 *
 * A document of pages (`Document.pages`, a PDF) is cut page by page, by the
 * same rule: no passage spans two pages, each carries its page number, and
 * a page with no text gives no passage. Passage indices still count from 0
 * through the whole document.
 *
 * @module
 */

import type { Corpus, Document } from "../types.ts";
import { CutKernel } from "./cut_kernel.ts";

/** One retrievable piece of a document. */
export interface Passage {
  /** `"<doc_id>#<index>"`, unique in a corpus whose document ids are unique. */
  id: string;
  doc_id: string;
  /** Position of the passage in its document, from 0. */
  index: number;
  /** The document's title (indexed with every passage of the document). */
  title: string;
  /** The passage's text, a slice of the document text. */
  text: string;
  /** The page it is on (from 1), for a document of pages; absent otherwise. */
  page?: number;
}

/** Passage sizes in words. */
export interface PassageOptions {
  /** Longest passage before the tail rule (default {@link PASSAGE_MAX_WORDS}). */
  maxWords?: number;
  /** Size at which a paragraph end closes a passage (default {@link PASSAGE_MIN_WORDS}). */
  minWords?: number;
}

/** Default longest passage, in words (see the module documentation). */
export const PASSAGE_MAX_WORDS = 200;
/** Default size at which a paragraph end closes a passage, in words. */
export const PASSAGE_MIN_WORDS = 100;

/** All passages of a corpus, document by document, in corpus order. */
export function passagesOf(
  corpus: Corpus | readonly Document[],
  options: PassageOptions = {},
): Passage[] {
  const documents = Array.isArray(corpus) ? corpus : (corpus as Corpus).documents;
  const out: Passage[] = [];
  for (const doc of documents) {
    for (const passage of splitDocument(doc, options)) out.push(passage);
  }
  return out;
}

/**
 * The passages of one document, by the rule in the module documentation.
 *
 * @throws {RangeError} when `maxWords` is below 1 or `minWords` is outside 0..maxWords.
 */
export function splitDocument(doc: Document, options: PassageOptions = {}): Passage[] {
  const maxWords = options.maxWords ?? PASSAGE_MAX_WORDS;
  const minWords = options.minWords ?? PASSAGE_MIN_WORDS;
  if (!Number.isInteger(maxWords) || maxWords < 1) {
    throw new RangeError(`maxWords must be a whole number of at least 1, got ${maxWords}.`);
  }
  if (!Number.isInteger(minWords) || minWords < 0 || minWords > maxWords) {
    throw new RangeError(`minWords must be a whole number from 0 to maxWords, got ${minWords}.`);
  }
  if (doc.pages !== undefined && doc.pages.length > 0) {
    return splitPages(doc, (page) => splitDocument(page, { maxWords, minWords }));
  }
  const text = doc.text;
  // One scan: the units' word counts add up to the document's (a short document is one passage,
  // and an ASCII one then never makes its unit objects).
  let words = cutter().scan(text);
  let units: Unit[] | null = null;
  if (words < 0) {
    units = findUnits(text);
    words = 0;
    for (let u = 0; u < units.length; u++) words += units[u].words;
  }
  if (words <= maxWords) return [passage(doc, 0, text.trim())];
  units ??= cutter().units();
  const ranges = pack(cutLongUnits(text, units, maxWords), maxWords, minWords);
  return ranges.map((r, index) => passage(doc, index, text.slice(r.start, r.end)));
}

/**
 * @internal The passages of a document of pages: `split` cuts each page
 * (given as a document of its own text), and the pieces are numbered through
 * the whole document and given their page.
 */
export function splitPages(doc: Document, split: (page: Document) => Passage[]): Passage[] {
  const starts = doc.pages!;
  const out: Passage[] = [];
  for (let p = 0; p < starts.length; p++) {
    const text = doc.text.slice(starts[p], p + 1 < starts.length ? starts[p + 1] : doc.text.length);
    if (text.trim() === "") continue;
    const page: Document = { id: doc.id, title: doc.title, text, source: doc.source };
    for (const piece of split(page)) {
      const index = out.length;
      out.push({ ...piece, id: `${doc.id}#${index}`, index, page: p + 1 });
    }
  }
  return out.length > 0 ? out : [passage(doc, 0, "")];
}

function passage(doc: Document, index: number, text: string): Passage {
  return { id: `${doc.id}#${index}`, doc_id: doc.id, index, title: doc.title, text };
}

/** A run of text between two possible break points, with its word count. */
export interface Unit {
  start: number;
  end: number;
  words: number;
  /** The unit ends a paragraph (or the document). */
  paragraphEnd: boolean;
}

/** @internal Whether UTF-16 unit `c` is whitespace (the word separator of the passage rule). */
export function isSpace(c: number): boolean {
  return c <= 32 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 ||
    c === 0xfeff;
}

/** @internal Han, Hiragana and Katakana units count as one word each (surrogate-pair Han is rare). */
export function isIdeograph(c: number): boolean {
  return (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) ||
    (c >= 0xf900 && c <= 0xfaff);
}

// ASCII characters that end a sentence (1) or may follow its end (2): . ! ? and closers " ' ) ] }
const SENTENCE = new Uint8Array(128);
for (const c of ".!?") SENTENCE[c.charCodeAt(0)] = 1;
for (const c of "\"')]}") SENTENCE[c.charCodeAt(0)] = 2;

/** Sentence role of a non-ASCII character: 3 = ends a sentence at once (。！？), 2 = closer. */
function sentenceRole(c: number): number {
  if (c === 0x3002 || c === 0xff01 || c === 0xff1f) return 3;
  if (c === 0x2019 || c === 0x201d || c === 0xbb) return 2;
  return 0;
}

function pushUnit(
  units: Unit[],
  start: number,
  end: number,
  words: number,
  paragraphEnd: boolean,
): void {
  units.push({ start, end, words, paragraphEnd });
}

/** Reused UTF-8 buffer of {@link unitsOf}. */
let asciiBuffer = new Uint8Array(1 << 16);
const asciiEncoder = new TextEncoder();
let cutKernel: CutKernel | null = null;

/** The SIMD scan of ASCII documents (cut_kernel.ts), made on first use. */
function cutter(): CutKernel {
  return cutKernel ??= new CutKernel();
}

/**
 * The units of `text` (see {@link findUnits}). A text that is all ASCII (the
 * common case, told by `encodeInto` writing one byte per character) is
 * scanned as bytes, by the SIMD kernel of cut_kernel.ts (what
 * {@link splitDocument} uses) or by {@link findAsciiUnits}; both give the
 * same units faster than reading the string a character at a time.
 *
 * @internal `ascii: false` forces the general scan and `kernel: false` the JavaScript byte
 * scan, so tests can hold the three to the same result.
 */
export function unitsOf(text: string, options: { ascii?: boolean; kernel?: boolean } = {}): Unit[] {
  if (options.ascii === false) return findUnits(text);
  if (options.kernel !== false && cutter().scan(text) >= 0) return cutter().units();
  const n = text.length;
  if (n * 3 > asciiBuffer.length) asciiBuffer = new Uint8Array(n * 3 + 1024);
  const { read, written } = asciiEncoder.encodeInto(text, asciiBuffer);
  return read === n && written === n ? findAsciiUnits(asciiBuffer, n) : findUnits(text);
}

/**
 * {@link findUnits} for the ASCII bytes `bytes[0..n)`: the same steps with
 * the non-ASCII cases left out, a word (a run of bytes above 32) at a time.
 */
function findAsciiUnits(bytes: Uint8Array, n: number): Unit[] {
  const units: Unit[] = [];
  let start = -1; // start of the open unit, -1 when none is open
  let lastEnd = 0; // end of the last non-space character
  let words = 0;
  let sentenceEnd = false;
  let newlines = 0;
  let i = 0;
  while (i < n) {
    const c = bytes[i];
    if (c <= 32) {
      i++;
      let paragraphEnd = false;
      if (c === 10 && ++newlines === 2) paragraphEnd = true;
      else if (!sentenceEnd) continue;
      sentenceEnd = false;
      if (start >= 0) {
        pushUnit(units, start, lastEnd, words, paragraphEnd);
        start = -1;
        words = 0;
      } else if (paragraphEnd && units.length > 0) units[units.length - 1].paragraphEnd = true;
      continue;
    }
    // A word. `sentenceEnd` ends as its last character other than a closer left it (. ! ?
    // set it, others clear it, closers keep it); after a space it is always false, so a word
    // of closers alone leaves it false.
    newlines = 0;
    if (start < 0) start = i;
    words++;
    const wordStart = i;
    while (++i < n && bytes[i] > 32);
    lastEnd = i;
    let last = i - 1;
    while (last > wordStart && SENTENCE[bytes[last]] === 2) last--;
    sentenceEnd = SENTENCE[bytes[last]] === 1;
  }
  if (start >= 0) pushUnit(units, start, lastEnd, words, true);
  else if (units.length > 0) units[units.length - 1].paragraphEnd = true;
  return units;
}

function findUnits(text: string): Unit[] {
  const units: Unit[] = [];
  const n = text.length;
  let start = -1; // start of the open unit, -1 when none is open
  let lastEnd = 0; // end of the last non-space character
  let words = 0;
  let inWord = false;
  let sentenceEnd = false;
  let newlines = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32 || (c > 127 && isSpace(c))) {
      inWord = false;
      let paragraphEnd = false;
      if (c === 10 && ++newlines === 2) paragraphEnd = true;
      else if (!sentenceEnd) continue;
      sentenceEnd = false;
      if (start >= 0) {
        pushUnit(units, start, lastEnd, words, paragraphEnd);
        start = -1;
        words = 0;
      } else if (paragraphEnd && units.length > 0) units[units.length - 1].paragraphEnd = true;
      continue;
    }
    newlines = 0;
    if (start < 0) start = i;
    lastEnd = i + 1;
    const role = c < 128 ? SENTENCE[c] : sentenceRole(c);
    if (c >= 0x3040 && isIdeograph(c)) {
      words++;
      inWord = false;
    } else if (!inWord) {
      words++;
      inWord = true;
    }
    if (role === 1) sentenceEnd = true;
    else if (role === 3) {
      pushUnit(units, start, lastEnd, words, false);
      start = -1;
      words = 0;
      sentenceEnd = false;
    } else if (role !== 2) sentenceEnd = false;
    if (inWord && start >= 0) {
      // The rest of a plain ASCII word at once: each of its characters would only move lastEnd
      // and clear sentenceEnd.
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d <= 32 || d >= 128 || SENTENCE[d] !== 0) break;
        j++;
      }
      if (j > i + 1) {
        i = j - 1;
        lastEnd = j;
        sentenceEnd = false;
      }
    }
  }
  if (start >= 0) pushUnit(units, start, lastEnd, words, true);
  else if (units.length > 0) units[units.length - 1].paragraphEnd = true;
  return units;
}

/** Splits each unit longer than `maxWords` into the fewest pieces of at most that, evenly. */
function cutLongUnits(text: string, units: Unit[], maxWords: number): Unit[] {
  if (units.every((u) => u.words <= maxWords)) return units;
  const out: Unit[] = [];
  for (const unit of units) {
    if (unit.words <= maxWords) {
      out.push(unit);
      continue;
    }
    const size = Math.ceil(unit.words / Math.ceil(unit.words / maxWords));
    let pieceStart = unit.start;
    let lastEnd = unit.start;
    let words = 0;
    let inWord = false;
    for (let i = unit.start; i < unit.end; i++) {
      const c = text.charCodeAt(i);
      if (c < 128 ? c <= 32 : isSpace(c)) {
        inWord = false;
        continue;
      }
      const ideograph = c >= 0x3040 && isIdeograph(c);
      if (ideograph || !inWord) {
        if (words === size) {
          pushUnit(out, pieceStart, lastEnd, words, false);
          pieceStart = i;
          words = 0;
        }
        words++;
      }
      inWord = !ideograph;
      lastEnd = i + 1;
    }
    pushUnit(out, pieceStart, unit.end, words, unit.paragraphEnd);
  }
  return out;
}

/** Packs units into passage ranges (steps 3 and 4 of the rule). */
function pack(
  units: Unit[],
  maxWords: number,
  minWords: number,
): Array<{ start: number; end: number; words: number }> {
  let total = 0;
  for (const u of units) total += u.words;
  const share = total / Math.ceil(total / maxWords);
  const ranges: Array<{ start: number; end: number; words: number }> = [];
  let current: { start: number; end: number; words: number } | null = null;
  for (const unit of units) {
    if (current && current.words + unit.words > maxWords) {
      ranges.push(current);
      current = null;
    }
    if (current) {
      current.end = unit.end;
      current.words += unit.words;
    } else {
      current = { start: unit.start, end: unit.end, words: unit.words };
    }
    if (current.words >= share || (unit.paragraphEnd && current.words >= minWords)) {
      ranges.push(current);
      current = null;
    }
  }
  if (current) ranges.push(current);
  const last = ranges[ranges.length - 1];
  if (ranges.length > 1 && last.words < minWords / 2) {
    const previous = ranges[ranges.length - 2];
    previous.end = last.end;
    previous.words += last.words;
    ranges.pop();
  }
  return ranges;
}
