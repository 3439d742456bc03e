/**
 * A lazily built DFA over UTF-8 lines, from the NFA of re2_automaton.ts: the
 * prefilter that lets a regex scan with no literal text skip the lines that
 * cannot match, at a few table look-ups a byte, and run RE2 only on the rest.
 *
 * The DFA is the usual subset construction, one state per set of NFA nodes
 * (plus two context bits: the previous byte was a word byte; the position is
 * a line start), built as the text needs it, as RE2's own DFA is. Assertions
 * are decided when the next byte is seen, so `\b` and `$` are exact. `\n`
 * ends a line: a match found before it marks the line, otherwise the DFA
 * starts over for the next line. Bytes are grouped into classes that every
 * byte set of the NFA treats alike, so a table row is small.
 *
 * Linear time whatever the pattern: building a state costs at most the NFA's
 * size, and when the states or the work spent building them pass a budget
 * ({@link DfaLimits}) the DFA stops filtering: from then on it reports every
 * line as a candidate, which is the scan without the prefilter.
 *
 * @module
 */

import { type ByteNfa, NodeKind } from "../regex/byte_nfa.ts";
import { upperBound } from "./line_store.ts";

/** Budgets of {@link LineDfa}. */
export interface DfaLimits {
  /** Most states built; default 4,096. */
  maxStates?: number;
  /** Most NFA nodes visited while building states; default 4,000,000 (~20-40 ms). */
  maxWork?: number;
}

const UNKNOWN = -1;
const MATCHED = -2;
const NEWLINE = 10;

/** Whether byte `b` is an RE2 word character (`[0-9A-Za-z_]`; ASCII only, as RE2's `\b`). */
function isWordByte(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) ||
    b === 0x5f;
}

interface State {
  /** NFA nodes to continue from (sorted). */
  nodes: Int32Array;
  previousWord: boolean;
  lineStart: boolean;
}

/** The DFA of one pattern, shared by every segment of a scan (see the module doc). */
export class LineDfa {
  readonly #nfa: ByteNfa;
  readonly #maxStates: number;
  #workLeft: number;
  /** Byte -> class; `#representative[c]` is a byte of class c. */
  readonly #classes = new Uint8Array(256);
  readonly #representative: number[] = [];
  readonly #classCount: number;
  readonly #newlineClass: number;
  /** `#table[state * classCount + class]`: the next state's row, UNKNOWN or MATCHED. */
  #table: Int32Array;
  readonly #states: State[] = [];
  readonly #ids = new Map<string, number>();
  /** Visit marks for closures. */
  readonly #seen: Uint32Array;
  #mark = 0;
  #exhausted = false;

  constructor(nfa: ByteNfa, limits: DfaLimits = {}) {
    this.#nfa = nfa;
    this.#maxStates = limits.maxStates ?? 4096;
    this.#workLeft = limits.maxWork ?? 4_000_000;
    this.#seen = new Uint32Array(nfa.size);
    const signatures = new Map<string, number>();
    for (let b = 0; b < 256; b++) {
      let signature = b === NEWLINE ? "n" : isWordByte(b) ? "w" : "-";
      for (const set of nfa.byteSets) signature += set[b];
      let c = signatures.get(signature);
      if (c === undefined) {
        c = this.#representative.length;
        signatures.set(signature, c);
        this.#representative.push(b);
      }
      this.#classes[b] = c;
    }
    this.#classCount = this.#representative.length;
    this.#newlineClass = this.#classes[NEWLINE];
    this.#table = new Int32Array(this.#classCount * 64).fill(UNKNOWN);
    this.#stateRow({ nodes: new Int32Array(0), previousWord: false, lineStart: true });
  }

  /** True once a budget ran out: every line is then a candidate. */
  get exhausted(): boolean {
    return this.#exhausted;
  }

  /**
   * The first line in `[line, to)` of a segment (its UTF-8 `bytes`, lines
   * separated by `\n`, and `offsets`, the start of each line plus one past
   * the end) on which the pattern may match, or `to` when there is none.
   */
  firstCandidate(bytes: Uint8Array, offsets: Uint32Array, line: number, to: number): number {
    if (this.#exhausted || line >= to) return line;
    const end = offsets[to] - 1;
    const classes = this.#classes;
    let i = offsets[line];
    let row = 0;
    while (true) {
      const table = this.#table;
      for (; i < end; i++) {
        const next = table[row + classes[bytes[i]]];
        if (next < 0) break;
        row = next;
      }
      // A look-up that was not a plain step: the end of the range, a match, or a new state.
      const c = i < end ? classes[bytes[i]] : this.#newlineClass;
      let next = this.#table[row + c];
      if (next === UNKNOWN) next = this.#step(row, c);
      if (next === MATCHED || this.#exhausted) return upperBound(offsets, i, line, to) - 1;
      if (i >= end) return to;
      row = next;
      i++;
    }
  }

  /** Builds the transition of state row `row` on byte class `c`, fills it in and returns it. */
  #step(row: number, c: number): number {
    const state = this.#states[row / this.#classCount];
    const byte = this.#representative[c];
    const newline = byte === NEWLINE;
    const word = !newline && isWordByte(byte);
    const { kind, out, out2, arg, byteSets, start } = this.#nfa;
    const holds = [
      state.lineStart,
      newline,
      state.previousWord !== word,
      state.previousWord === word,
    ];
    // Closure of the state's nodes plus the start (an unanchored search starts everywhere).
    const mark = ++this.#mark;
    const seen = this.#seen;
    const stack = [start, ...state.nodes];
    const next: number[] = [];
    let matched = false;
    let work = 0;
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (seen[node] === mark) continue;
      seen[node] = mark;
      work++;
      switch (kind[node] as NodeKind) {
        case NodeKind.Byte:
          if (byteSets[arg[node]][byte] === 1) next.push(out[node]);
          break;
        case NodeKind.Split:
          stack.push(out2[node], out[node]);
          break;
        case NodeKind.Assert:
          if (holds[arg[node]]) stack.push(out[node]);
          break;
        case NodeKind.Match:
          matched = true;
          break;
      }
    }
    this.#workLeft -= work + next.length;
    let result: number;
    if (matched) result = MATCHED;
    else if (newline) result = 0;
    else {
      const nodes = Int32Array.from(new Set(next)).sort();
      result = this.#stateRow({ nodes, previousWord: word, lineStart: false });
    }
    if (this.#workLeft < 0 || result === UNKNOWN) {
      this.#exhausted = true;
      return UNKNOWN;
    }
    this.#table[row + c] = result;
    return result;
  }

  /** The row of a state, added when new; UNKNOWN when the state budget is spent. */
  #stateRow(state: State): number {
    const key = `${state.previousWord ? 1 : 0}${state.lineStart ? 1 : 0}${state.nodes.join(",")}`;
    const known = this.#ids.get(key);
    if (known !== undefined) return known * this.#classCount;
    const id = this.#states.length;
    if (id >= this.#maxStates) return UNKNOWN;
    this.#states.push(state);
    this.#ids.set(key, id);
    this.#workLeft -= key.length;
    const row = id * this.#classCount;
    if (row + this.#classCount > this.#table.length) {
      const grown = new Int32Array(this.#table.length * 2).fill(UNKNOWN);
      grown.set(this.#table);
      this.#table = grown;
    }
    return row;
  }
}

/** A source of candidate lines: the first candidate in [line, to), or `to`. */
export interface LineFilter {
  next(line: number, to: number): number;
}

/**
 * A {@link LineFilter} that remembers its last answer, so that asking again
 * inside the stretch it already searched costs nothing (a regex scan asks
 * for each line of a run it extends). Subclasses do the search.
 */
export abstract class RememberingLineFilter implements LineFilter {
  /** The last answer: no candidate in [#askedFrom, #answer). */
  #askedFrom = -1;
  #answer = -1;

  /** First candidate line in [line, to), or `to`. */
  next(line: number, to: number): number {
    if (this.#askedFrom <= line && line <= this.#answer) return this.#answer;
    this.#askedFrom = line;
    this.#answer = this.search(line, to);
    return this.#answer;
  }

  /** First candidate line in [line, to), or `to`, found afresh. */
  protected abstract search(line: number, to: number): number;
}

/**
 * The candidate lines of one segment for `scanRegex` (regex_scan.ts): lines
 * the DFA accepts, among the lines `inner` (the literal prefilter) lets
 * through when given.
 */
export class DfaLineFilter extends RememberingLineFilter {
  readonly #dfa: LineDfa;
  readonly #bytes: Uint8Array;
  readonly #offsets: Uint32Array;
  readonly #inner: LineFilter | undefined;

  constructor(
    dfa: LineDfa,
    segment: { bytes: Uint8Array; byteOffsets: Uint32Array },
    inner?: LineFilter,
  ) {
    super();
    this.#dfa = dfa;
    this.#bytes = segment.bytes;
    this.#offsets = segment.byteOffsets;
    this.#inner = inner;
  }

  protected search(line: number, to: number): number {
    const inner = this.#inner;
    if (inner === undefined) return this.#dfa.firstCandidate(this.#bytes, this.#offsets, line, to);
    while (line < to) {
      const candidate = inner.next(line, to);
      if (candidate >= to) return to;
      const one = this.#dfa.firstCandidate(this.#bytes, this.#offsets, candidate, candidate + 1);
      if (one === candidate) return candidate;
      line = candidate + 1;
    }
    return to;
  }
}
