/**
 * Result lines folded to one value per system and question (repeats averaged), in typed arrays:
 * the input of `runStats` (`comparison.ts`). A run of 100 systems × 10,000 questions compares
 * 4,950 pairs on up to 10,000 questions each, so a pair must be a merge of two sorted arrays, not
 * string sorts and Map lookups of objects.
 *
 * Every figure is summed in the order the statistics have always used, so the folded values are
 * the same doubles: a question's repeats in repeat order (lines of equal repeat in line order), a
 * system's questions in the order its lines first name them, a pair's questions in the order of
 * their ids (`Array.prototype.sort`'s order of strings).
 *
 * @module
 */

/** One system's folded questions. */
export interface FoldedSystem {
  /** Questions with a value, in the order the system's lines first name them. */
  score: Float64Array;
  /** Share of passing repeats, same order. */
  passShare: Float64Array;
  /** Each question's flip rate (`flipRate` in `significance.ts`), same order; NaN for one repeat. */
  flip: Float64Array;
  /** Rank of each question among all the run's question ids (string order), ascending. */
  ranks: Int32Array;
  /** Value of the metric on `ranks[i]`'s question. */
  byRankScore: Float64Array;
  /** 1 where the question's majority verdict passed (more than half of its repeats). */
  byRankMajority: Uint8Array;
}

/** The fields of a line the fold reads. */
interface FoldLine {
  system: string;
  question_id: string;
  repeat: number;
  passed: boolean | null;
}

/**
 * Folds `lines` for each of `systems` (undefined for a system with no valued line). `valueOf`
 * gives a line's value, null for a line left out.
 */
export function foldRepeats<L extends FoldLine>(
  systems: readonly string[],
  lines: readonly L[],
  valueOf: (line: L) => number | null,
): Map<string, FoldedSystem> {
  const systemIndex = new Map<string, number>();
  for (const name of systems) if (!systemIndex.has(name)) systemIndex.set(name, systemIndex.size);
  const S = systemIndex.size;
  // The valued lines (entries), in line order.
  const value = new Float64Array(lines.length);
  const repeat = new Float64Array(lines.length);
  const passed = new Uint8Array(lines.length);
  const entrySystem = new Int32Array(lines.length);
  const entryQuestion = new Int32Array(lines.length);
  const questionIds = new Map<string, number>();
  const ids: string[] = [];
  // The question first seen after each one: systems run the questions in one order, so the next
  // line's question is guessed and checked by comparing strings, without hashing them.
  const after: number[] = [];
  let entries = 0;
  let lastSystemName: string | undefined;
  let lastSystem = -1;
  let lastQuestion = -1;
  for (const line of lines) {
    const v = valueOf(line);
    if (v === null) continue;
    let s = lastSystem;
    if (line.system !== lastSystemName) {
      s = systemIndex.get(line.system) ?? -1;
      lastSystemName = line.system;
      lastSystem = s;
    }
    if (s === -1) continue;
    let q = lastQuestion;
    if (q === -1 || ids[q] !== line.question_id) {
      const guess = q === -1 ? -1 : after[q];
      if (guess !== -1 && ids[guess] === line.question_id) q = guess;
      else {
        const known = questionIds.get(line.question_id);
        if (known === undefined) {
          const added = ids.length;
          questionIds.set(line.question_id, added);
          ids.push(line.question_id);
          after.push(-1);
          if (q !== -1 && after[q] === -1) after[q] = added;
          q = added;
        } else {
          q = known;
        }
      }
      lastQuestion = q;
    }
    const e = entries++;
    value[e] = v;
    repeat[e] = line.repeat;
    passed[e] = line.passed === true ? 1 : 0;
    entrySystem[e] = s;
    entryQuestion[e] = q;
  }
  // Entries chained per cell (system × question), in line order. The cells are found in a table
  // of every system × question unless the lines are sparse (systems that ran different
  // questions), where a Map holds only the cells there are.
  const Q = ids.length;
  const dense = S * Q <= Math.max(4 * entries, 1 << 20);
  const table = dense ? new Int32Array(S * Q).fill(-1) : undefined;
  const cellOf = dense ? undefined : new Map<number, number>();
  const next = new Int32Array(entries).fill(-1);
  const cellFirst = new Int32Array(entries);
  const cellLast = new Int32Array(entries);
  const cellCount = new Int32Array(entries);
  const cellQuestion = new Int32Array(entries);
  const cellSystem = new Int32Array(entries);
  const cellsPerSystem = new Int32Array(S + 1);
  let cells = 0;
  for (let e = 0; e < entries; e++) {
    const s = entrySystem[e];
    const q = entryQuestion[e];
    const key = q * S + s;
    let cell = table === undefined ? cellOf!.get(key) ?? -1 : table[key];
    if (cell === -1) {
      cell = cells++;
      if (table === undefined) cellOf!.set(key, cell);
      else table[key] = cell;
      cellFirst[cell] = e;
      cellLast[cell] = e;
      cellCount[cell] = 1;
      cellQuestion[cell] = q;
      cellSystem[cell] = s;
      cellsPerSystem[s + 1]++;
      continue;
    }
    next[cellLast[cell]] = e;
    cellLast[cell] = e;
    cellCount[cell]++;
  }
  // Each system's cells, in the order they were made (its questions in first-seen order).
  for (let s = 0; s < S; s++) cellsPerSystem[s + 1] += cellsPerSystem[s];
  const cellsBySystem = new Int32Array(cells);
  const filled = cellsPerSystem.slice(0, S);
  for (let cell = 0; cell < cells; cell++) cellsBySystem[filled[cellSystem[cell]]++] = cell;
  const rankOf = questionRanks(questionIds);
  const out = new Map<string, FoldedSystem>();
  const order: number[] = [];
  const atRank = new Int32Array(questionIds.size);
  for (const [name, s] of systemIndex) {
    const from = cellsPerSystem[s];
    const n = cellsPerSystem[s + 1] - from;
    if (n === 0) continue;
    const folded: FoldedSystem = {
      score: new Float64Array(n),
      passShare: new Float64Array(n),
      flip: new Float64Array(n),
      ranks: new Int32Array(n),
      byRankScore: new Float64Array(n),
      byRankMajority: new Uint8Array(n),
    };
    const majority = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const cell = cellsBySystem[from + i];
      // The cell's entries in repeat order; a stable insertion sort (repeats are few).
      order.length = 0;
      for (let e = cellFirst[cell]; e !== -1; e = next[e]) {
        let at = order.length;
        order.push(e);
        while (at > 0 && repeat[order[at - 1]] - repeat[e] > 0) {
          order[at] = order[at - 1];
          at--;
        }
        order[at] = e;
      }
      const k = cellCount[cell];
      let total = 0;
      let passes = 0;
      let changes = 0;
      for (let j = 0; j < k; j++) {
        total += value[order[j]];
        passes += passed[order[j]];
        if (j > 0 && passed[order[j]] !== passed[order[j - 1]]) changes++;
      }
      folded.score[i] = total / k;
      folded.passShare[i] = passes / k;
      folded.flip[i] = k < 2 ? NaN : changes / (k - 1);
      majority[i] = passes * 2 > k ? 1 : 0;
      folded.ranks[i] = rankOf[cellQuestion[cell]];
      atRank[folded.ranks[i]] = i;
    }
    folded.ranks.sort();
    for (let r = 0; r < n; r++) {
      const i = atRank[folded.ranks[r]];
      folded.byRankScore[r] = folded.score[i];
      folded.byRankMajority[r] = majority[i];
    }
    out.set(name, folded);
  }
  return out;
}

/** Each question's rank (by id) in the default string order of `Array.prototype.sort`. */
function questionRanks(questionIds: Map<string, number>): Int32Array {
  const ids = [...questionIds.keys()].sort();
  const rank = new Int32Array(ids.length);
  for (let r = 0; r < ids.length; r++) rank[questionIds.get(ids[r])!] = r;
  return rank;
}
