/**
 * The one tokenizer of ragbench's lexical retrieval, used for documents and
 * queries alike, so a word is found exactly when the query spells it the way
 * the index does.
 *
 * The rule, applied in this order:
 *
 * 1. **Normalise**: Unicode NFKC (full-width letters, ligatures and
 *    superscripts become their plain forms), then lower-case.
 * 2. **Split** into tokens. A token is one of:
 *    - a *word*: a maximal run of letters (`\p{L}`), combining marks (`\p{M}`)
 *      and non-ASCII digits. An apostrophe (`'` or `’`) between two such
 *      characters stays inside the word (`don't`, `o'neill`, `eiffel's`);
 *    - a *number*: a maximal run of ASCII digits 0-9. A `.` between two
 *      digits is a decimal point and stays (`3.5`, `1.2.3`); a `,` followed
 *      by exactly three digits is a thousands separator (`1,250`,
 *      `10,000,000`); any other `.` or `,` ends the number (`1953.` gives
 *      `1953`, `3,5` gives `3` and `5`);
 *    - one Han, Hiragana or Katakana character (these scripts do not put
 *      spaces between words, so each character is searched on its own).
 *
 *    Everything else separates tokens: spaces, punctuation, symbols, emoji,
 *    hyphens (`state-of-the-art` gives four tokens) and the change between
 *    letters and ASCII digits (`828m` gives `828` and `m`; `covid19` gives
 *    `covid` and `19`), so a figure written next to its unit is still found.
 * 3. **Clean**: apostrophes and thousands separators are removed
 *    (`don't` -> `dont`, `1,250` -> `1250`, `eiffel's` -> `eiffels`).
 * 4. **Stopwords**: a token in {@link STOPWORDS} (a short list of English
 *    function words and question words) is dropped.
 * 5. **Plural rule** (tokens of four or more characters only; Lucene's
 *    "English minimal stemmer", after Harman 1991): `-ies` becomes `-y`
 *    (`cities` -> `city`); tokens ending in `-us`, `-ss`, `-aies`, `-eies`,
 *    `-aes`, `-ees` or `-oes` are kept; any other final `-s` is dropped
 *    (`towers` -> `tower`, `metres` -> `metre`, `eiffels` -> `eiffel`).
 *    No other stemming, and no accent folding (`café` and `cafe` differ).
 *
 * The result depends on nothing but the input text: no locale, no
 * configuration, no state.
 *
 * {@link tokenize} applies the rule to a query or any text. An index build
 * uses {@link TermInterner}, which gives the same terms as numbers without
 * making a string per token (tests hold the two to the same output).
 *
 * @module
 */

/**
 * Words removed from documents and queries: Lucene's default English
 * stopword set without `no` and `not` (negation matters), plus question words
 * and a few auxiliaries, so "What is the height of ..." searches for "height".
 * Compared after normalising and removing apostrophes, before the plural rule.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "been",
  "but",
  "by",
  "did",
  "do",
  "does",
  "for",
  "from",
  "had",
  "has",
  "have",
  "how",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "of",
  "on",
  "or",
  "such",
  "that",
  "the",
  "their",
  "then",
  "there",
  "these",
  "they",
  "this",
  "those",
  "to",
  "was",
  "were",
  "what",
  "when",
  "where",
  "which",
  "who",
  "whom",
  "whose",
  "why",
  "will",
  "with",
]);

/** Step 1 of the rule: NFKC, then lower-case. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

// Character classes of the scanner.
const SEP = 0;
const WORD = 1;
const DIGIT = 2;
const IDEO = 3;
const APOS = 4;
const DOT = 5;
const COMMA = 6;
/** Set on a class when the character is a surrogate pair (two UTF-16 units). */
const WIDE = 8;
const UNKNOWN = 255;

const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
const IDEOGRAPH = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;

/** Classes of the 65,536 UTF-16 units, filled lazily for non-ASCII ones. */
const UNIT_CLASS = new Uint8Array(65536).fill(UNKNOWN);
for (let c = 0; c < 128; c++) {
  let k = SEP;
  if (c >= 48 && c <= 57) k = DIGIT;
  else if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) k = WORD;
  else if (c === 39) k = APOS;
  else if (c === 46) k = DOT;
  else if (c === 44) k = COMMA;
  UNIT_CLASS[c] = k;
}
UNIT_CLASS[0x2019] = APOS;
const ASTRAL_CLASS = new Map<number, number>();

function classifyCodePoint(ch: string): number {
  if (IDEOGRAPH.test(ch)) return IDEO;
  return WORD_CHAR.test(ch) ? WORD : SEP;
}

/** Class of the character at `i` (with {@link WIDE} set for a surrogate pair). */
function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  const k = UNIT_CLASS[c];
  if (k !== UNKNOWN) return k;
  if (c >= 0xd800 && c <= 0xdfff) {
    // Surrogates are classified as pairs and never cached per unit; a lone one separates.
    const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    if (c > 0xdbff || d < 0xdc00 || d > 0xdfff) return SEP;
    const cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
    let a = ASTRAL_CLASS.get(cp);
    if (a === undefined) {
      a = classifyCodePoint(String.fromCodePoint(cp));
      ASTRAL_CLASS.set(cp, a);
    }
    return a === SEP ? SEP : a | WIDE;
  }
  const u = classifyCodePoint(String.fromCharCode(c));
  UNIT_CLASS[c] = u;
  return u;
}

function isDigit(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** Token boundaries found by {@link scanSpans}: `starts[i]`..`ends[i]` (end exclusive). */
export class SpanBuffer {
  /** Start offsets (UTF-16 units) of the tokens found by the last scan. */
  starts: Int32Array;
  /** End offsets (exclusive) of the tokens found by the last scan. */
  ends: Int32Array;

  constructor(capacity = 1024) {
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /** Grows the buffers to hold at least `capacity` tokens, keeping what they hold. */
  grow(capacity: number): void {
    const starts = new Int32Array(capacity);
    const ends = new Int32Array(capacity);
    starts.set(this.starts);
    ends.set(this.ends);
    this.starts = starts;
    this.ends = ends;
  }
}

/**
 * Step 2 of the rule: finds the tokens ("surface forms") of an already
 * normalised text and writes their offsets into `spans`. Returns how many
 * were found. Stopwords are not removed here (see {@link termOfSurface}).
 */
export function scanSpans(text: string, spans: SpanBuffer): number {
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    const c0 = text.charCodeAt(i);
    let k = c0 < 128 ? UNIT_CLASS[c0] : classAt(text, i);
    const start = i;
    if (k === WORD || k === (WORD | WIDE)) {
      i += k === WORD ? 1 : 2;
      while (i < n) {
        const c = text.charCodeAt(i);
        k = c < 128 ? UNIT_CLASS[c] : classAt(text, i);
        if (k === WORD) i++;
        else if (k === (WORD | WIDE)) i += 2;
        else if (k === APOS && i + 1 < n && (classAt(text, i + 1) & ~WIDE) === WORD) i++;
        else break;
      }
    } else if (k === DIGIT) {
      i++;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c >= 48 && c <= 57) i++;
        else if (c === 46 && i + 1 < n && isDigit(text, i + 1)) i += 2;
        else if (
          c === 44 && i + 3 < n && isDigit(text, i + 1) && isDigit(text, i + 2) &&
          isDigit(text, i + 3) && !(i + 4 < n && isDigit(text, i + 4))
        ) i += 4;
        else break;
      }
    } else if (k === IDEO || k === (IDEO | WIDE)) {
      i += k === IDEO ? 1 : 2;
    } else {
      i += k & WIDE ? 2 : 1;
      continue;
    }
    if (count === spans.starts.length) spans.grow(count * 2);
    spans.starts[count] = start;
    spans.ends[count] = i;
    count++;
  }
  return count;
}

const APOSTROPHES = /['\u2019]/g;

/**
 * Steps 3 to 5 of the rule for one surface form found by {@link scanSpans}:
 * the term it is indexed and searched as, or `null` for a stopword.
 */
export function termOfSurface(surface: string): string | null {
  let word = surface;
  if (word.includes("'") || word.includes("\u2019")) word = word.replace(APOSTROPHES, "");
  if (word.includes(",")) word = word.replaceAll(",", "");
  if (STOPWORDS.has(word)) return null;
  return pluralStem(word);
}

/** Step 5: the light plural rule (see the module documentation). */
export function pluralStem(word: string): string {
  const n = word.length;
  if (n < 4 || word.charCodeAt(n - 1) !== 115 /* s */) return word;
  const before = word[n - 2];
  if (before === "u" || before === "s") return word;
  if (before === "e") {
    const third = word[n - 3];
    if (third === "i") {
      const fourth = word[n - 4];
      return fourth === "a" || fourth === "e" ? word : word.slice(0, n - 3) + "y";
    }
    if (third === "a" || third === "o" || third === "e") return word;
  }
  return word.slice(0, n - 1);
}

const sharedSpans = new SpanBuffer();

/**
 * The terms of `text` in order, by the rule in the module documentation:
 * normalised, split, cleaned, stopwords removed, plural rule applied.
 * Repeated words repeat. An empty array means nothing searchable.
 */
export function tokenize(text: string): string[] {
  const normalized = normalizeText(text);
  const count = scanSpans(normalized, sharedSpans);
  const terms: string[] = [];
  for (let t = 0; t < count; t++) {
    const term = termOfSurface(normalized.slice(sharedSpans.starts[t], sharedSpans.ends[t]));
    if (term !== null) terms.push(term);
  }
  return terms;
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/** Value of a surface form that is a stopword. */
const STOP_ID = -1;
/** Returned by a lookup that finds nothing. */
const MISSING = -2;

function finishHash(h: number): number {
  return h ^ (h >>> 15);
}

/** FNV-1a over UTF-16 units `text[s..e)`, the same function the ASCII path computes on bytes. */
function hashRange(text: string, s: number, e: number): number {
  let h = FNV_OFFSET;
  for (let i = s; i < e; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return finishHash(h);
}

function isDigitByte(c: number): boolean {
  return c >= 48 && c <= 57;
}

// Slot layout of UnitTable: 8 ints (32 bytes, two slots per cache line).
const SLOT = 8;
const S_HASH = 0;
/** Key length + 1; 0 marks an empty slot. */
const S_LENGTH = 1;
const S_VALUE = 2;
/** Offset in the pool of the key's units past the first {@link INLINE}. */
const S_POOL = 3;
/** The key's first 8 UTF-16 units, two per int, in ints 4..7. */
const S_UNITS = 4;
const INLINE = 8;

/**
 * A hash table from non-empty strings, or ranges of a string or of ASCII
 * bytes, to int values. Open addressing with linear probing over FNV-1a
 * hashes, at most 60% full. A slot keeps a key's first eight characters
 * beside its hash, so most lookups touch a single cache line; longer keys
 * keep the rest in one shared pool.
 *
 * Why not a `Map<string, number>`: keying a `Map` needs a string per lookup,
 * and allocating and hashing hundreds of thousands of new strings per
 * second is what made the first version of the index build slow.
 */
class UnitTable {
  #slots = new Int32Array(SLOT << 10);
  #mask = (1 << 10) - 1;
  #pool = new Uint16Array(1 << 12);
  #poolUsed = 0;
  #count = 0;

  /** Keys stored. */
  get size(): number {
    return this.#count;
  }

  /** The value of the lower-cased ASCII key `bytes[s..e)` whose hash is `h`, or MISSING. */
  findBytes(bytes: Uint8Array, s: number, e: number, h: number): number {
    const len = e - s;
    const slots = this.#slots;
    const mask = this.#mask;
    const inline = len < INLINE ? len : INLINE;
    probe: for (let j = h & mask;; j = (j + 1) & mask) {
      const at = j * SLOT;
      const stored = slots[at + S_LENGTH];
      if (stored === 0) return MISSING;
      if (slots[at + S_HASH] !== h || stored !== len + 1) continue;
      for (let k = 0; k < inline; k += 2) {
        const high = k + 1 < len ? (bytes[s + k + 1] | 32) << 16 : 0;
        if (slots[at + S_UNITS + (k >> 1)] !== ((bytes[s + k] | 32) | high)) continue probe;
      }
      const from = slots[at + S_POOL];
      const pool = this.#pool;
      for (let k = INLINE; k < len; k++) {
        if (pool[from + k - INLINE] !== (bytes[s + k] | 32)) continue probe;
      }
      return slots[at + S_VALUE];
    }
  }

  /** The value of the key `text[s..e)` whose hash is `h`, or MISSING. */
  findString(text: string, s: number, e: number, h: number): number {
    const len = e - s;
    const slots = this.#slots;
    const mask = this.#mask;
    const inline = len < INLINE ? len : INLINE;
    probe: for (let j = h & mask;; j = (j + 1) & mask) {
      const at = j * SLOT;
      const stored = slots[at + S_LENGTH];
      if (stored === 0) return MISSING;
      if (slots[at + S_HASH] !== h || stored !== len + 1) continue;
      for (let k = 0; k < inline; k += 2) {
        const high = k + 1 < len ? text.charCodeAt(s + k + 1) << 16 : 0;
        if (slots[at + S_UNITS + (k >> 1)] !== (text.charCodeAt(s + k) | high)) continue probe;
      }
      const from = slots[at + S_POOL];
      const pool = this.#pool;
      for (let k = INLINE; k < len; k++) {
        if (pool[from + k - INLINE] !== text.charCodeAt(s + k)) continue probe;
      }
      return slots[at + S_VALUE];
    }
  }

  /** The value of `key`, or MISSING. */
  get(key: string): number {
    return key === ""
      ? MISSING
      : this.findString(key, 0, key.length, hashRange(key, 0, key.length));
  }

  /** Stores `value` for `key` (non-empty, not stored yet) whose hash is `h`. */
  insert(key: string, h: number, value: number): void {
    if ((this.#count + 1) * 5 > (this.#mask + 1) * 3) this.#rehash((this.#mask + 1) * 2);
    this.#count++;
    const len = key.length;
    let from = 0;
    if (len > INLINE) {
      if (this.#poolUsed + len > this.#pool.length) {
        const pool = new Uint16Array(Math.max(this.#pool.length * 2, this.#poolUsed + len));
        pool.set(this.#pool);
        this.#pool = pool;
      }
      from = this.#poolUsed;
      for (let k = INLINE; k < len; k++) this.#pool[this.#poolUsed++] = key.charCodeAt(k);
    }
    const slots = this.#slots;
    const mask = this.#mask;
    let j = h & mask;
    while (slots[j * SLOT + S_LENGTH] !== 0) j = (j + 1) & mask;
    const at = j * SLOT;
    slots[at + S_HASH] = h;
    slots[at + S_LENGTH] = len + 1;
    slots[at + S_VALUE] = value;
    slots[at + S_POOL] = from;
    for (let k = 0; k < INLINE && k < len; k += 2) {
      const high = k + 1 < len ? key.charCodeAt(k + 1) << 16 : 0;
      slots[at + S_UNITS + (k >> 1)] = key.charCodeAt(k) | high;
    }
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#slots.byteLength + this.#pool.byteLength;
  }

  #rehash(size: number): void {
    const old = this.#slots;
    const slots = new Int32Array(size * SLOT);
    const mask = size - 1;
    for (let at = 0; at < old.length; at += SLOT) {
      if (old[at + S_LENGTH] === 0) continue;
      let j = old[at + S_HASH] & mask;
      while (slots[j * SLOT + S_LENGTH] !== 0) j = (j + 1) & mask;
      slots.set(old.subarray(at, at + SLOT), j * SLOT);
    }
    this.#slots = slots;
    this.#mask = mask;
  }
}

/** Term -> id, for searching a built index (see {@link TermInterner.dictionary}). */
export class TermDictionary {
  #table = new UnitTable();

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
 * string per token: gives exactly the terms of {@link tokenize} (a test
 * checks this), numbered from 0 in order of first appearance.
 *
 * How: every surface form seen so far is kept in a hash table keyed by its
 * characters, mapping to its term id or to "stopword", so the rule's steps
 * 3-5 run once per distinct surface form. Pure-ASCII texts (detected with
 * `TextEncoder.encodeInto`, which writes one byte per character exactly when
 * all are ASCII) skip NFKC and lower-casing, which change nothing there but
 * A-Z, and are split, lower-cased and hashed as bytes in one fused loop that
 * implements step 2 for ASCII; other texts go through {@link normalizeText}
 * and {@link scanSpans}.
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

  /**
   * The term ids of `text` in order, stopwords skipped, as a view of an
   * internal buffer that the next call overwrites.
   */
  termIds(text: string): Int32Array {
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
      if (id === MISSING) id = this.#learn(latin1Lower(bytes, s, i), h);
      if (id === STOP_ID) continue;
      if (count === out.length) out = this.#growOut();
      out[count++] = id;
    }
    return count;
  }

  /** Steps 2-5 of the rule over an already normalised text. */
  #unicodeIds(text: string): number {
    const spans = this.#spans;
    const found = scanSpans(text, spans);
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

  /** Runs steps 3-5 on a new surface form (hash `h`) and remembers the outcome. */
  #learn(surface: string, h: number): number {
    const term = termOfSurface(surface);
    let id = STOP_ID;
    if (term !== null) {
      const th = term === surface ? h : hashRange(term, 0, term.length);
      id = this.dictionary.find(term, th);
      if (id === MISSING) {
        id = this.terms.length;
        this.terms.push(term);
        this.dictionary.add(term, th, id);
      }
    }
    this.#surfaces.insert(surface, h, id);
    return id;
  }
}

/** The lower-cased ASCII bytes `bytes[s..e)` as a string. */
function latin1Lower(bytes: Uint8Array, s: number, e: number): string {
  let out = "";
  // In chunks, so a huge token cannot overflow the argument stack.
  for (let from = s; from < e; from += 4096) {
    const to = Math.min(e, from + 4096);
    const units = new Array<number>(to - from);
    for (let q = from; q < to; q++) units[q - from] = bytes[q] | 32;
    out += String.fromCharCode(...units);
  }
  return out;
}
