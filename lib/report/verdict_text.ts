/**
 * The words of a paired comparison: one sentence per verdict of
 * `lib/score/significance.ts`, used by the console, `summary.md`,
 * `recommendation.json`, the HTML report and `compare`, so every output says
 * the same thing of the same pair. The verdict, the interval and the p-value
 * come from one test, so a sentence never calls a difference undecided while
 * quoting an interval that excludes 0.
 *
 * @module
 */

import type { PairStats } from "../score/comparison.ts";
import { ALPHA, MIN_DIFFERING, type PairedComparison, verdictOf } from "../score/significance.ts";
import { plural } from "../util/plural.ts";

/** A p-value as printed: three decimals, or "< 0.001". */
export function formatP(p: number): string {
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

/** "p = 0.031" or "p < 0.001". */
export function pClause(p: number): string {
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}

/** A difference with its sign, three decimals; anything that rounds to 0 is "0.000". */
export function signed(x: number): string {
  const s = x.toFixed(3);
  if (Number(s) === 0) return "0.000";
  return x > 0 ? `+${s}` : s;
}

/** Three decimals, or two significant digits for a positive value that would print as 0.000. */
export function small(x: number): string {
  return x > 0 && x < 0.0005 ? x.toPrecision(2) : x.toFixed(3);
}

/** The parts of a comparison its clauses read. */
export type Compared = Pick<PairedComparison, "n" | "differing" | "diff" | "p_value">;

/** The interval and p-value of a comparison: "[-0.238, +0.021], p = 0.063". */
export function intervalClause(c: Compared): string {
  return `[${signed(c.diff.low)}, ${signed(c.diff.high)}], ${pClause(c.p_value)}`;
}

/** The rule behind "too few differ": "no test at 5 % can decide with fewer than 6 differing". */
export function tooFewRule(): string {
  return `no test at ${
    Math.round(ALPHA * 100)
  } % can decide with fewer than ${MIN_DIFFERING} differing`;
}

/** Why a comparison with too few differing questions decides nothing: "only 2 of 21 questions differ, ...". */
export function tooFewClause(c: Compared): string {
  const rule = tooFewRule();
  if (c.differing === c.n) return `all ${c.n} questions differ, but ${rule}`;
  return `only ${c.differing} of ${plural(c.n, "question")} ${
    c.differing === 1 ? "differs" : "differ"
  }, and ${rule}`;
}

/**
 * One comparison as a sentence, a − b:
 * - "a beats b by 0.140 [+0.050, +0.240], p = 0.004 (n = 21)" (or "trails");
 * - "a and b cannot be separated: difference +0.048 [-0.030, +0.110], p = 0.250
 *   (n = 21); differences under 0.120 cannot be told from noise here";
 * - "a and b cannot be separated: only 2 of 21 questions differ, and no test
 *   at 5 % can decide with fewer than 6 differing; difference +0.095 [...],
 *   p = 0.500";
 * - "a and b do not differ on any of the 21 questions".
 */
export function comparisonSentence(pair: PairStats): string {
  const c = pair.score;
  switch (verdictOf(c)) {
    case "same":
      return `${pair.a} and ${pair.b} do not differ on ${
        c.n === 1 ? "the one question" : `any of the ${c.n} questions`
      }`;
    case "too_few":
      return `${pair.a} and ${pair.b} cannot be separated: ${tooFewClause(c)}; difference ${
        signed(c.diff.mean)
      } ${intervalClause(c)}`;
    case "undecided":
      return `${pair.a} and ${pair.b} cannot be separated: difference ${signed(c.diff.mean)} ${
        intervalClause(c)
      } (n = ${c.n}); differences under ${small(c.mde!)} cannot be told from noise here`;
    case "higher":
    case "lower":
      return `${pair.a} ${c.diff.mean > 0 ? "beats" : "trails"} ${pair.b} by ${
        Math.abs(c.diff.mean).toFixed(3)
      } ${intervalClause(c)} (n = ${c.n})`;
  }
}

/** The pair turned round when its second system scored higher, so sentences say "beats". */
export function betterFirst(pair: PairStats): PairStats {
  if (pair.score.diff.mean >= 0) return pair;
  const { diff } = pair.score;
  return {
    a: pair.b,
    b: pair.a,
    score: { ...pair.score, diff: { mean: -diff.mean, low: -diff.high, high: -diff.low } },
    accuracy: pair.accuracy && {
      only_a: pair.accuracy.only_b,
      only_b: pair.accuracy.only_a,
      p_value: pair.accuracy.p_value,
    },
  };
}

/** How a metric is named in sentences: "score" for the answer score, else its own name. */
export function metricLabel(metric: string): string {
  if (metric === "answer_score") return "score";
  const at = metric.indexOf("@");
  const name = at < 0 ? metric : metric.slice(0, at);
  const label = name === "ndcg" ? "nDCG" : name === "map" ? "MAP" : name;
  return at < 0 ? label : `${label}${metric.slice(at)}`;
}
