/**
 * SQuAD's answer metrics, as its official evaluation script (v1.1, with v2's
 * rule for empty answers) computes them:
 *
 * - normalise(s): lower-case; delete every ASCII punctuation character
 *   (Python's `string.punctuation`, so `’` and `–` stay); delete the words
 *   `a`, `an`, `the`; collapse whitespace runs to one space and trim.
 * - exact match: normalise(prediction) = normalise(gold).
 * - token F1: tokens are normalise(s) split on spaces; `same` is the size of
 *   the multiset intersection of prediction and gold tokens;
 *   P = same / |prediction|, R = same / |gold|, F1 = 2PR / (P + R), and 0 when
 *   `same` is 0. When either side has no tokens, F1 is 1 if both are empty,
 *   else 0.
 *
 * Both are taken as the best over the gold answers.
 *
 * @module
 */

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
// Python's `\b` in a str pattern is Unicode-aware; JavaScript's is not, hence the lookarounds.
const ARTICLES = /(?<![\p{L}\p{M}\p{N}_])(?:a|an|the)(?![\p{L}\p{M}\p{N}_])/gu;

/** SQuAD answer normalisation (see the module documentation). */
export function normalizeAnswer(text: string): string {
  return text.toLowerCase().replace(PUNCTUATION, "").replace(ARTICLES, " ")
    .split(/\s+/).filter(Boolean).join(" ");
}

function tokens(text: string): string[] {
  const normal = normalizeAnswer(text);
  return normal === "" ? [] : normal.split(" ");
}

/** Token F1 of a prediction against one gold answer. */
export function tokenF1(prediction: string, gold: string): number {
  const p = tokens(prediction);
  const g = tokens(gold);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      same++;
      counts.set(t, left - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/** The best score of `prediction` over `golds`, with the gold answer that gave it. */
export function bestOver(
  metric: (prediction: string, gold: string) => number,
  prediction: string,
  golds: readonly string[],
): { score: number; gold: string | null } {
  let best = { score: 0, gold: null as string | null };
  for (const gold of golds) {
    const score = metric(prediction, gold);
    if (best.gold === null || score > best.score) best = { score, gold };
  }
  return best;
}

/** 1 when the normalised strings are equal, else 0. */
export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}
