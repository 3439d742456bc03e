/**
 * "Did you mean" suggestions for misspelt names (config keys, system types,
 * tool names, document ids).
 *
 * @module
 */

/** Edit distance (insert, delete, substitute, swap adjacent) between two strings. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
  for (let i = 0; i < rows; i++) d[i][0] = i;
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
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
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const limit = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
    // The distance is at least the difference in length: skip without computing it.
    if (Math.abs(name.length - candidate.length) > Math.min(limit, bestDistance)) continue;
    if (candidate.length > MAX_SUGGESTED_LENGTH) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `did you mean "x"?` for the closest candidate, or a list of the valid names. */
export function suggestion(name: string, candidates: readonly string[]): string {
  const match = closestMatch(name, candidates);
  if (match !== undefined) return `did you mean "${match}"?`;
  if (candidates.length === 0) return "";
  const shown = candidates.slice(0, 12).map((c) => `"${c}"`).join(", ");
  return `expected one of ${shown}${candidates.length > 12 ? ", …" : ""}`;
}
