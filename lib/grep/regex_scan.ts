/**
 * The regex scan of `corpus_grep` ({@link scanRegex}): runs of candidate
 * lines go to the RE2 engine as one UTF-8 subject, sized by bytes and, with a
 * deadline, by time; literal prefilters (`requiredLiterals` in
 * re2_prefilter.ts, searched with the SIMD byte scan: literal_filter.ts) and
 * the lazy line DFA (line_dfa.ts) pick the candidate lines first. Results are
 * those of line_scan.ts ({@link ScanResult}).
 *
 * @module
 */

import { DfaLineFilter, LineDfa } from "./line_dfa.ts";
import { literalFilter } from "./literal_filter.ts";
import type { ByteNfa } from "../regex/byte_nfa.ts";
import {
  type ByteSegment,
  byteSegments,
  type LineRange,
  type LineStore,
  upperBound,
} from "./line_store.ts";
import type { LineHit, ScanResult } from "./line_scan.ts";

/** Bytes handed to the regex engine in one call: starting, smallest and largest size. */
const SUBJECT_START = 64 * 1024;
const SUBJECT_MIN = 256;
const SUBJECT_MAX = 256 * 1024;
/**
 * With a deadline, an engine call that took longer than this does not let the next subject grow,
 * and one that took twice as long halves it: subjects are sized by time as well as bytes, so a
 * pattern the engine is slow on is searched a line or so at a time and the deadline holds.
 */
const SLICE_MS = 20;
/** Non-candidate bytes worth scanning to save an engine call (~5 µs, ~300 bytes of scan). */
const RUN_GAP = 512;

/** The regex engine as the regex scan needs it (see `Re2Regex` in re2.ts). */
export interface SubjectMatcher {
  /** First match in UTF-8 `subject`: start in code points and matched text, or null. */
  search(subject: Uint8Array): { index: number; text: string } | null;
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
 * re2_prefilter.ts: a line can only match when it holds a string of every set),
 * the text is searched for candidate lines first (literal_filter.ts) and the engine
 * sees only runs of candidates, which skips most of the text for most
 * patterns. With `automaton` (re2_automaton.ts, a sound over-approximation
 * of the pattern), a lazy DFA (line_dfa.ts) picks the candidate lines, or,
 * with `prefilter` too, checks the lines the literals let through: the
 * engine then sees only lines the DFA accepts.
 */
export function scanRegex(
  store: LineStore,
  matcher: SubjectMatcher,
  options: {
    range?: LineRange;
    limit: number;
    signal?: AbortSignal;
    prefilter?: readonly (readonly string[])[] | null;
    automaton?: ByteNfa | null;
    /**
     * A `performance.now()` time after which no more engine calls are made: the scan returns
     * what it found with `stoppedAtLine` set. RE2 is linear in the text, but locating a match
     * of a large counted repetition costs ~1 s per long matching line, and a scan runs to
     * completion (a worker cannot be stopped inside one), so the scan bounds itself. With a
     * deadline the subjects are also sized by time ({@link SLICE_MS}), so one call over many
     * lines cannot outlast it; a single slow line still can, by that line's time.
     */
    deadline?: number;
  },
): ScanResult {
  const range = options.range ?? { from: 0, to: store.lineCount };
  const hits: LineHit[] = [];
  const segments = byteSegments(store);
  const dfa = options.automaton ? new LineDfa(options.automaton) : undefined;
  const timed = options.deadline !== undefined;
  // Timed, the first subject is small: how fast the engine is on this pattern is not known yet.
  let budget = timed ? SUBJECT_MIN : SUBJECT_START;
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s];
    const { bytes, byteOffsets, pointOffsets } = segment;
    const count = byteOffsets.length - 1;
    let line = Math.max(range.from - segment.firstLine, 0);
    const to = Math.min(range.to - segment.firstLine, count);
    if (line >= to) continue;
    const literal = options.prefilter ? literalFilter(store, s, options.prefilter) : undefined;
    const filter = dfa ? new DfaLineFilter(dfa, segment, literal) : literal;
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
      const before = timed ? performance.now() : 0;
      if (timed && before > options.deadline!) {
        return { hits, stoppedAtLimit: false, stoppedAtLine: segment.firstLine + line };
      }
      const found = matcher.search(bytes.subarray(start, byteOffsets[stop] - 1));
      const took = timed ? performance.now() - before : 0;
      if (found === null) {
        line = stop;
        if (took > 2 * SLICE_MS) budget = Math.max(budget >> 1, SUBJECT_MIN);
        else if (took <= SLICE_MS) budget = Math.min(budget * 2, SUBJECT_MAX);
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
