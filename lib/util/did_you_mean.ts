/**
 * "Did you mean" suggestions for misspelt names (config keys, system types,
 * tool names, document ids).
 *
 * @module
 */

/** Rows of the distance table, kept between calls (a did-you-mean may compare 100,000 ids). */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * Edit distance (insert, delete, substitute, swap adjacent) between two strings. With `max`,
 * the computation stops as soon as the distance is sure to exceed it and returns `max + 1`
 * (a row of the table whose smallest entry is over `max` cannot lead back under it).
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (a === b) return 0;
  const cols = b.length + 1;
  if (rows[0].length < cols) rows = rows.map(() => new Int32Array(cols * 2));
  // Three rows of the table: two back (for swaps), one back, and the one being filled.
  let [before, previous, current] = rows;
  for (let j = 0; j < cols; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const ca = a.charCodeAt(i - 1);
    const caBefore = i > 1 ? a.charCodeAt(i - 2) : -1;
    current[0] = i;
    let smallest = i;
    for (let j = 1; j < cols; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca === cb ? 0 : 1));
      if (j > 1 && ca === b.charCodeAt(j - 2) && caBefore === cb) {
        d = Math.min(d, before[j - 2] + 1);
      }
      current[j] = d;
      if (d < smallest) smallest = d;
    }
    if (smallest > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  const distance = previous[b.length];
  return distance > max ? max + 1 : distance;
}

/** Names longer than this get no did-you-mean (the comparison costs length²). */
export const MAX_SUGGESTED_LENGTH = 200;

/**
 * The known name closest to `name`, when it is close enough to be a likely
 * typo (distance at most a third of the longer name, at least 1); compared
 * case-insensitively. Ties go to the earlier candidate.
 */
export function closestMatch(name: string, candidates: Iterable<string>): string | undefined {
  // Names come from models and users: a huge one gets no suggestion rather than a slow one.
  if (name.length > MAX_SUGGESTED_LENGTH) return undefined;
  const lower = name.toLowerCase();
  const letters = letterCounts(lower);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const limit = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
    // The distance is at least the difference in length: skip without computing it.
    if (Math.abs(name.length - candidate.length) > Math.min(limit, bestDistance)) continue;
    if (candidate.length > MAX_SUGGESTED_LENGTH) continue;
    const other = candidate.toLowerCase();
    const bound = Math.min(limit, bestDistance - 1);
    // And at least what the two hold of letters the other lacks (among 100,000 document ids of
    // one length, most are ruled out here, without the table).
    if (bound < 0 || letterDifference(letters, lower.length, other) > bound) continue;
    const distance = editDistance(lower, other, bound);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Letter counts of `text`, code units folded into 128 buckets. */
function letterCounts(text: string): Int32Array {
  const counts = new Int32Array(128);
  for (let i = 0; i < text.length; i++) counts[text.charCodeAt(i) & 127]++;
  return counts;
}

const scratch = new Int32Array(128);

/**
 * A lower bound on the edit distance of a text of `length` with `counts` and
 * `other`: the larger of what each holds that the other lacks, letter by
 * letter. Every edit (an insertion, deletion, substitution or swap) lowers it
 * by at most one, and folding letters into buckets only lowers it further.
 */
function letterDifference(counts: Int32Array, length: number, other: string): number {
  scratch.set(counts);
  let extra = 0;
  for (let i = 0; i < other.length; i++) {
    const c = other.charCodeAt(i) & 127;
    if (scratch[c] > 0) scratch[c]--;
    else extra++;
  }
  const missing = length - (other.length - extra);
  return Math.max(extra, missing);
}

/** `did you mean "x"?` for the closest candidate, or a list of the valid names. */
export function suggestion(name: string, candidates: readonly string[]): string {
  const match = closestMatch(name, candidates);
  if (match !== undefined) return `did you mean "${match}"?`;
  if (candidates.length === 0) return "";
  const shown = candidates.slice(0, 12).map((c) => `"${c}"`).join(", ");
  return `expected one of ${shown}${candidates.length > 12 ? ", …" : ""}`;
}
