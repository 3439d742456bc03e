/**
 * An in-memory line index of a corpus's documents, and the two scans over it
 * that `corpus_grep` runs: plain words and regex.
 *
 * A line is the text between two `\n` of a document (a trailing `\r` is
 * dropped); line numbers start at 1 in every document; lines are numbered
 * globally in corpus order (document order, then line order), which is also
 * the order every scan reports them. Only the first {@link SCAN_CHARS}
 * characters of a line are searched.
 *
 * The index is built once per corpus object (cached in a WeakMap, so it goes
 * away with the corpus). Each scan works on a form of the text built on
 * first use and kept: the lines joined by `\n` into large strings (original
 * case or lower case), or the same as UTF-8 bytes for the regex engine.
 * Searching one big string with `indexOf` and mapping hits back to lines by
 * binary search is several times faster than testing line by line.
 *
 * @module
 */

import type { Corpus, Document } from "../types.ts";

/** Characters of a line that are searched; the rest of a long line is ignored. */
export const SCAN_CHARS = 2000;
/** Scan text per segment, in UTF-16 units (keeps strings far below V8's limit). */
const SEGMENT_CHARS = 32 * 1024 * 1024;
/** Bytes handed to the regex engine in one call: starting, smallest and largest size. */
const SUBJECT_START = 64 * 1024;
const SUBJECT_MIN = 256;
const SUBJECT_MAX = 256 * 1024;
/** Non-candidate bytes worth scanning to save an engine call (~5 µs, ~300 bytes of scan). */
const RUN_GAP = 512;

/** The line index of one corpus. */
export interface LineStore {
  readonly documents: readonly Document[];
  /** `docFirstLine[d]` is the global index of document d's first line; one extra entry at the end. */
  readonly docFirstLine: Uint32Array;
  /** UTF-16 offset of each line in its document's text. */
  readonly lineStart: Uint32Array;
  /** Length of each line in UTF-16 units (without `\r\n`). */
  readonly lineLength: Uint32Array;
  readonly lineCount: number;
  /** Segment boundaries: global index of each segment's first line, plus `lineCount`. */
  readonly segmentStarts: readonly number[];
  /** Scan forms, built on first use. */
  forms: { exact?: TextSegment[]; lower?: TextSegment[]; utf8?: ByteSegment[] };
}

/** Scan text of a run of lines: `text` is the lines joined by `\n`. */
export interface TextSegment {
  firstLine: number;
  text: string;
  /** Start of each line in `text`, plus `text.length + 1` at the end. */
  offsets: Uint32Array;
}

/** The same as {@link TextSegment} in UTF-8, for the regex engine. */
export interface ByteSegment {
  firstLine: number;
  bytes: Uint8Array;
  /** Start of each line in `bytes`, plus `bytes.length + 1`. */
  byteOffsets: Uint32Array;
  /** Start of each line in code points, plus the total + 1. */
  pointOffsets: Uint32Array;
}

/** A matching line found by a scan. */
export interface LineHit {
  /** Global line index (see {@link lineAddress} for document and line number). */
  line: number;
  /** Where the first match starts in the line's scanned text, in UTF-16 units. */
  column: number;
}

/** What a scan found: hits in corpus order, at most `limit` of them. */
export interface ScanResult {
  hits: LineHit[];
  /** True when the scan stopped at `limit` with lines left unsearched. */
  stoppedAtLimit: boolean;
}

/** A range of global lines: `[from, to)`. */
export interface LineRange {
  from: number;
  to: number;
}

/** The regex engine as the regex scan needs it (see `Re2Regex` in re2.ts). */
export interface SubjectMatcher {
  /** First match in UTF-8 `subject`: start in code points and matched text, or null. */
  search(subject: Uint8Array): { index: number; text: string } | null;
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
  return {
    documents,
    docFirstLine,
    lineStart: Uint32Array.from(starts),
    lineLength: Uint32Array.from(lengths),
    lineCount: starts.length,
    segmentStarts,
    forms: {},
  };
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

/** UTF-8 form of every segment, for the regex engine. Built on first use. */
export function byteSegments(store: LineStore): ByteSegment[] {
  let segments = store.forms.utf8;
  if (segments === undefined) {
    const encoder = new TextEncoder();
    // The original-case text is only a step here: keep it only if a scan already built it.
    const exact = store.forms.exact ??
      store.segmentStarts.slice(0, -1).map((first, s) =>
        exactSegment(store, first, store.segmentStarts[s + 1])
      );
    segments = exact.map((segment) => {
      const bytes = encoder.encode(segment.text);
      if (bytes.length === segment.text.length) {
        // Pure ASCII: bytes, code points and UTF-16 units coincide.
        return {
          firstLine: segment.firstLine,
          bytes,
          byteOffsets: segment.offsets,
          pointOffsets: segment.offsets,
        };
      }
      const count = segment.offsets.length;
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
      return { firstLine: segment.firstLine, bytes, byteOffsets, pointOffsets };
    });
    store.forms.utf8 = segments;
  }
  return segments;
}

/**
 * Lines of `range` that contain every one of `words` (substring match; for a
 * case-insensitive search the caller passes the words through
 * {@link lowerForScan}). Stops after `limit` hits.
 */
export function scanWords(
  store: LineStore,
  words: readonly string[],
  options: { caseSensitive: boolean; range?: LineRange; limit: number; signal?: AbortSignal },
): ScanResult {
  if (words.length === 0) throw new RangeError("scanWords needs at least one word");
  // The longest word first: usually the rarest, so the fewest candidate lines.
  const ordered = [...new Set(words)].sort((a, b) => b.length - a.length);
  const range = options.range ?? { from: 0, to: store.lineCount };
  const hits: LineHit[] = [];
  for (const segment of textSegments(store, !options.caseSensitive)) {
    const count = segment.offsets.length - 1;
    const from = Math.max(range.from - segment.firstLine, 0);
    const to = Math.min(range.to - segment.firstLine, count);
    if (from >= to) continue;
    options.signal?.throwIfAborted();
    if (scanSegmentWords(segment, ordered, from, to, hits, options.limit)) {
      return { hits, stoppedAtLimit: true };
    }
  }
  return { hits, stoppedAtLimit: false };
}

/**
 * Leapfrog intersection: find the next line holding the first word, then check
 * that each other word's next occurrence is on that same line; when one is
 * further on, restart from its line. Each word's search only moves forward.
 * Returns true when `limit` was reached with lines left.
 */
function scanSegmentWords(
  segment: TextSegment,
  words: readonly string[],
  from: number,
  to: number,
  hits: LineHit[],
  limit: number,
): boolean {
  const { text, offsets } = segment;
  const end = offsets[to] - 1;
  let line = from;
  while (line < to) {
    const at = text.indexOf(words[0], offsets[line]);
    if (at < 0 || at >= end) return false;
    const candidate = upperBound(offsets, at, line, to) - 1;
    const lineStart = offsets[candidate];
    let column = at - lineStart;
    let next = candidate;
    for (let w = 1; w < words.length; w++) {
      const found = text.indexOf(words[w], lineStart);
      if (found < 0 || found >= end) return false;
      if (found >= offsets[candidate + 1]) {
        next = upperBound(offsets, found, candidate, to) - 1;
        break;
      }
      if (found - lineStart < column) column = found - lineStart;
    }
    if (next !== candidate) {
      line = next;
      continue;
    }
    if (hits.length >= limit) return true;
    hits.push({ line: segment.firstLine + candidate, column });
    line = candidate + 1;
  }
  return false;
}

/**
 * Lines of `range` where `matcher` finds a match. Runs of lines go to the
 * engine as one subject (joined by `\n`), so the per-call cost is paid once
 * per run rather than once per line; a hit maps back to its line by code
 * point offset. The matcher must treat line ends as a line-mode regex would
 * (`^`/`$` at each line); a match that spans a line end is re-checked on its
 * first line alone. After a hit the subject size shrinks so dense matches
 * stay cheap; after a miss it grows again. Stops after `limit` hits.
 *
 * With `prefilter` (sets of lower-case strings, see `requiredLiterals` in
 * re2_syntax.ts: a line can only match when it holds a string of every set),
 * the lower-cased text is searched for candidate lines first and the engine
 * sees only runs of candidates, which skips most of the text for most
 * patterns.
 */
export function scanRegex(
  store: LineStore,
  matcher: SubjectMatcher,
  options: {
    range?: LineRange;
    limit: number;
    signal?: AbortSignal;
    prefilter?: readonly (readonly string[])[] | null;
  },
): ScanResult {
  const range = options.range ?? { from: 0, to: store.lineCount };
  const hits: LineHit[] = [];
  const segments = byteSegments(store);
  const lower = options.prefilter ? textSegments(store, true) : undefined;
  let budget = SUBJECT_START;
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s];
    const { bytes, byteOffsets, pointOffsets } = segment;
    const count = byteOffsets.length - 1;
    let line = Math.max(range.from - segment.firstLine, 0);
    const to = Math.min(range.to - segment.firstLine, count);
    if (line >= to) continue;
    const filter = lower ? new CandidateFilter(lower[s], options.prefilter!) : undefined;
    let calls = 0;
    while (line < to) {
      if ((++calls & 255) === 0) options.signal?.throwIfAborted();
      if (filter) {
        line = filter.next(line, to);
        if (line >= to) break;
      }
      const start = byteOffsets[line];
      let stop: number;
      if (filter) {
        // Extend the run over candidates that follow closely.
        stop = line + 1;
        while (stop < to && byteOffsets[stop + 1] - start <= budget) {
          const next = filter.next(stop, to);
          if (next >= to || byteOffsets[next] - byteOffsets[stop] > RUN_GAP) break;
          stop = next + 1;
        }
      } else {
        stop = upperBound(byteOffsets, start + budget, line + 1, to) - 1;
        if (stop <= line) stop = line + 1;
      }
      const found = matcher.search(bytes.subarray(start, byteOffsets[stop] - 1));
      if (found === null) {
        line = stop;
        budget = Math.min(budget * 2, SUBJECT_MAX);
        continue;
      }
      const point = pointOffsets[line] + found.index;
      const hitLine = upperBound(pointOffsets, point, line, stop) - 1;
      let column: number | undefined = point - pointOffsets[hitLine];
      if (found.text.includes("\n")) {
        // Spans a line end: does the line hold a match of its own?
        const alone = matcher.search(
          bytes.subarray(byteOffsets[hitLine], byteOffsets[hitLine + 1] - 1),
        );
        column = alone?.index;
      }
      if (column !== undefined) {
        if (hits.length >= options.limit) return { hits, stoppedAtLimit: true };
        hits.push({
          line: segment.firstLine + hitLine,
          column: pointsToUnits(segment, hitLine, column),
        });
      }
      line = hitLine + 1;
      budget = Math.max(budget >> 3, SUBJECT_MIN);
    }
  }
  return { hits, stoppedAtLimit: false };
}

/**
 * Finds lines of a lower-cased segment that hold a string of every set: the
 * most selective set is searched for (indexOf for one string, a V8 RegExp of
 * plain alternatives for several: no quantifiers, so linear), the other sets
 * are checked on each line it finds.
 */
class CandidateFilter {
  readonly #segment: TextSegment;
  readonly #single: string | undefined;
  readonly #alternatives: RegExp | undefined;
  readonly #others: readonly (readonly string[])[];
  /** The last answer: no candidate in [#askedFrom, #answer). */
  #askedFrom = -1;
  #answer = -1;

  constructor(segment: TextSegment, sets: readonly (readonly string[])[]) {
    this.#segment = segment;
    let primary = 0;
    for (let i = 1; i < sets.length; i++) {
      if (selectivity(sets[i]) > selectivity(sets[primary])) primary = i;
    }
    const chosen = sets[primary];
    if (chosen.length === 1) this.#single = chosen[0];
    else this.#alternatives = new RegExp(alternation(chosen), "g");
    this.#others = sets.filter((_, i) => i !== primary);
  }

  /** First candidate line in [line, to), or `to`. */
  next(line: number, to: number): number {
    if (this.#askedFrom <= line && line <= this.#answer) return this.#answer;
    this.#askedFrom = line;
    this.#answer = this.#search(line, to);
    return this.#answer;
  }

  #search(line: number, to: number): number {
    const { text, offsets } = this.#segment;
    const end = offsets[to] - 1;
    while (line < to) {
      let at: number;
      if (this.#single !== undefined) {
        at = text.indexOf(this.#single, offsets[line]);
      } else {
        const pattern = this.#alternatives!;
        pattern.lastIndex = offsets[line];
        at = pattern.exec(text)?.index ?? -1;
      }
      if (at < 0 || at >= end) return to;
      const candidate = upperBound(offsets, at, line, to) - 1;
      if (this.#others.length === 0) return candidate;
      const lineText = text.slice(offsets[candidate], offsets[candidate + 1] - 1);
      if (this.#others.every((set) => set.some((s) => lineText.includes(s)))) return candidate;
      line = candidate + 1;
    }
    return to;
  }
}

/** Longer shortest string first, then fewer strings. */
function selectivity(set: readonly string[]): number {
  return Math.min(...set.map((s) => s.length)) * 100 - set.length;
}

/** A V8 regex source matching any of `strings` literally, sharing common prefixes. */
function alternation(strings: readonly string[]): string {
  const root = new Map<string, unknown>();
  for (const s of strings) {
    let node = root;
    for (const ch of s) {
      let child = node.get(ch) as Map<string, unknown> | undefined;
      if (child === undefined) node.set(ch, child = new Map());
      node = child;
    }
    node.set("", true);
  }
  const emit = (node: Map<string, unknown>): string => {
    const ends = node.has("");
    const branches = [...node.entries()].filter(([ch]) => ch !== "");
    if (branches.length === 0) return "";
    const leaves = branches.every(([, child]) =>
      (child as Map<string, unknown>).size === 1 &&
      (child as Map<string, unknown>).has("")
    );
    let body: string;
    if (leaves && branches.length > 1) {
      body = `[${branches.map(([ch]) => escapeClass(ch)).join("")}]`;
    } else {
      const parts = branches.map(([ch, child]) =>
        escapeRegex(ch) + emit(child as Map<string, unknown>)
      );
      body = parts.length === 1 ? parts[0] : `(?:${parts.join("|")})`;
    }
    return ends ? `(?:${body})?` : body;
  };
  return emit(root);
}

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|\/-]/.test(ch) ? `\\${ch}` : ch;
}

function escapeClass(ch: string): string {
  return /[\\\]^-]/.test(ch) ? `\\${ch}` : ch;
}

/** A column of `line` in code points, in UTF-16 units (astral characters take two). */
function pointsToUnits(segment: ByteSegment, line: number, points: number): number {
  if (segment.byteOffsets === segment.pointOffsets) return points;
  const { bytes } = segment;
  let units = 0;
  let seen = 0;
  for (let i = segment.byteOffsets[line]; seen < points; i++) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue;
    seen++;
    units += b >= 0xf0 ? 2 : 1;
  }
  return units;
}

/** First index i in [lo, hi] with `values[i] > target` (hi when none). */
function upperBound(values: Uint32Array, target: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
