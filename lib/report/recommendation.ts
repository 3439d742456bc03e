/**
 * The recommendation at the end of a run: the best system on the run's
 * metric (the answer score, or for a run whose systems give no answer a
 * retrieval metric such as nDCG@10), then the cheapest and the fastest system
 * not significantly below the best, each line saying what choosing it gives
 * up, with warnings a reader should see before trusting the choice (a system
 * whose every question errored comes first). Pure: it reads summaries and
 * statistics and returns data plus the sentences the console, `summary.md`
 * and the HTML report print. Written to `recommendation.json`.
 *
 * "Not significantly below" is the verdict of the one paired test of
 * `lib/score/significance.ts`: 0 inside its interval, which is p ≥ 0.05.
 *
 * @module
 */

import { pairOf, type RunStats } from "../score/comparison.ts";
import { ALPHA, type Verdict, verdictOf } from "../score/significance.ts";
import {
  comparisonSentence,
  intervalClause,
  metricLabel,
  signed,
  tooFewClause,
} from "./verdict_text.ts";
import { plural } from "../util/plural.ts";

export { comparisonSentence, formatP } from "./verdict_text.ts";
/** Significance level of "significantly below" (`lib/score/sign_flip.ts`). */
export { ALPHA };
/** An error rate above this is warned about. */
export const ERROR_RATE_WARNING = 0.05;
/** A best-effort rate above this is warned about. */
export const BEST_EFFORT_WARNING = 0.2;
/** A tool whose outputs were cut to `tools.max_output_chars` more often than this is warned about. */
export const TOOL_CUT_WARNING = 0.1;

/** What the recommendation needs to know of each system. */
export interface RecommendationSystem {
  system: string;
  /** Model id; null when the system calls no model (or it is unknown). */
  model: string | null;
  /** Result lines (questions × repeats). */
  questions: number;
  errors: number;
  cost_per_question: number | null;
  p50_latency_ms: number | null;
  best_effort_rate: number | null;
  /** Lines whose trace was stopped by a cost, token or tool-call cap. */
  budget_exhausted: number;
  /** Offered tools with network side effects. */
  network_tools: readonly string[];
  /** Calls of each tool, and how many of their outputs were cut (`tool_usage.csv`). */
  tool_cuts?: ReadonlyArray<{ tool: string; calls: number; truncated: number }>;
  /** The message of its first errored line, when every line of it errored. */
  first_error?: string | null;
  /** Its headline retrieval metrics (e.g. `ndcg@10`, `recall@100`), when it retrieves. */
  retrieval?: Readonly<Record<string, number | null>>;
}

/** A system picked for one reason. */
export interface Pick {
  system: string;
  /** Mean of the recommendation's metric, with its 95 % interval. */
  score: number;
  low: number;
  high: number;
  cost_per_question: number | null;
  p50_latency_ms: number | null;
  /** Its headline retrieval metrics, when it retrieves. */
  retrieval?: Record<string, number | null>;
  /** Against the best system (absent for the best itself): one test's difference, interval and p. */
  versus_best?: {
    diff: number;
    low: number;
    high: number;
    p_value: number;
    /** Questions both ran, and those whose values differ. */
    n: number;
    differing: number;
    verdict: Verdict;
  };
}

/** The recommendation, as written to `recommendation.json`. */
export interface Recommendation {
  /** What the systems are ranked by: `answer_score`, or a retrieval metric such as `ndcg@10`. */
  metric: string;
  best: Pick | null;
  cheapest: Pick | null;
  fastest: Pick | null;
  /**
   * One sentence per system whose every question errored, with its first
   * error's message: the first thing every output shows. Also the first warnings.
   */
  failed: string[];
  warnings: string[];
  /** The sentences to print, in order (dead systems, the picks, then the other warnings). */
  lines: string[];
}

/** Builds the recommendation; systems without a value of the metric are not ranked. */
export function recommend(
  systems: readonly RecommendationSystem[],
  stats: RunStats,
): Recommendation {
  const metric = stats.metric;
  const scored = stats.systems.filter((s) => s.score !== null);
  const info = new Map(systems.map((s) => [s.system, s]));
  const dead = deadWarnings(systems);
  const warnings = [...dead, ...systemWarnings(systems)];
  const empty = { metric, best: null, cheapest: null, fastest: null, failed: dead, warnings };
  if (scored.length === 0) return { ...empty, lines: warnings.map((w) => `warning: ${w}`) };
  const order = new Map(stats.systems.map((s, i) => [s.system, i]));
  // Best mean; ties go to the cheaper, then the earlier system.
  const best = [...scored].sort((x, y) =>
    y.score!.mean - x.score!.mean ||
    (info.get(x.system)?.cost_per_question ?? Infinity) -
      (info.get(y.system)?.cost_per_question ?? Infinity) ||
    order.get(x.system)! - order.get(y.system)!
  )[0];
  const pick = (system: string): Pick => {
    const s = stats.systems[order.get(system)!];
    const i = info.get(system);
    const out: Pick = {
      system,
      score: s.score!.mean,
      low: s.score!.low,
      high: s.score!.high,
      cost_per_question: i?.cost_per_question ?? null,
      p50_latency_ms: i?.p50_latency_ms ?? null,
      ...(i?.retrieval ? { retrieval: { ...i.retrieval } } : {}),
    };
    const pair = system === best.system ? undefined : pairOf(stats, system, best.system);
    if (pair) {
      const c = pair.score;
      out.versus_best = {
        diff: c.diff.mean,
        low: c.diff.low,
        high: c.diff.high,
        p_value: c.p_value,
        n: c.n,
        differing: c.differing,
        verdict: verdictOf(c),
      };
    }
    return out;
  };
  // Not significantly below the best: the test does not put the difference below 0.
  const contenders = scored.filter((s) => {
    if (s.system === best.system) return true;
    const pair = pairOf(stats, s.system, best.system);
    return pair !== undefined && verdictOf(pair.score) !== "lower";
  }).map((s) => s.system);
  // The lowest figure; ties go to the best itself, then to the earlier system.
  const by = (key: "cost_per_question" | "p50_latency_ms") =>
    contenders.filter((name) => info.get(name)?.[key] != null).sort((x, y) =>
      info.get(x)![key]! - info.get(y)![key]! ||
      Number(x !== best.system) - Number(y !== best.system) ||
      order.get(x)! - order.get(y)!
    )[0];
  const cheapestName = by("cost_per_question");
  const fastestName = by("p50_latency_ms");
  const result: Recommendation = {
    ...empty,
    best: pick(best.system),
    cheapest: cheapestName === undefined ? null : pick(cheapestName),
    fastest: fastestName === undefined ? null : pick(fastestName),
    lines: [],
  };
  const noise = noiseWarning(scored.map((s) => s.system), stats);
  if (noise) warnings.push(noise);
  result.lines = [
    ...dead.map((w) => `warning: ${w}`),
    ...pickLines(result, scored.length),
    ...warnings.slice(dead.length).map((w) => `warning: ${w}`),
  ];
  return result;
}

function pickLines(r: Recommendation, ranked: number): string[] {
  const best = r.best!;
  const label = metricLabel(r.metric);
  if (ranked === 1) {
    return [`best ${label}: ${describe(best, label)}; the only system ranked on ${label}`];
  }
  const lines = [`best ${label}: ${describe(best, label)}${bestGivesUp(r)}`];
  const other = (kind: "cheapest" | "fastest", p: Pick | null) => {
    if (!p) return;
    const head = `${kind} not significantly below the best: `;
    if (p.system === best.system) {
      lines.push(
        `${head}${best.system}, the best itself: no system within noise of it ${
          kind === "cheapest" ? "costs less" : "has a lower p50 latency"
        }`,
      );
      return;
    }
    lines.push(
      `${head}${describe(p, label)}: gives up ${givesUp(p, best, label)}, ${gain(kind, p, best)}`,
    );
  };
  other("cheapest", r.cheapest);
  other("fastest", r.fastest);
  return lines;
}

/** What the best gives up: the cost and latency of a system it is not shown to beat. */
function bestGivesUp(r: Recommendation): string {
  const best = r.best!;
  const parts: string[] = [];
  const cheap = r.cheapest;
  if (cheap && cheap.system !== best.system) {
    const ratio = times(best.cost_per_question, cheap.cost_per_question);
    parts.push(
      ratio
        ? `costs ${ratio} as much per question as ${cheap.system}`
        : `costs $${
          best.cost_per_question?.toPrecision(3) ?? "?"
        }/question where ${cheap.system} costs nothing`,
    );
  }
  const fast = r.fastest;
  if (fast && fast.system !== best.system) {
    const ratio = times(best.p50_latency_ms, fast.p50_latency_ms);
    parts.push(
      ratio
        ? `has ${ratio} the p50 latency of ${fast.system}`
        : `is slower than ${fast.system} (p50 ${best.p50_latency_ms?.toFixed(1) ?? "?"} ms)`,
    );
  }
  if (parts.length === 0) return "; no cheaper or faster system is within noise of it";
  return `; it ${parts.join(" and ")}, which it is not shown to beat`;
}

/** What a cheaper or faster pick saves against the best. */
function gain(kind: "cheapest" | "fastest", p: Pick, best: Pick): string {
  const [value, reference, what] = kind === "cheapest"
    ? [p.cost_per_question, best.cost_per_question, "cost per question"]
    : [p.p50_latency_ms, best.p50_latency_ms, "p50 latency"];
  const ratio = times(value, reference);
  if (ratio) return `for ${ratio} the best's ${what}`;
  return reference === null ? `and the best's ${what} is unknown` : `at the same ${what}`;
}

/** value / reference as "0.31×" (two significant digits); null when it is not a ratio. */
function times(value: number | null, reference: number | null): string | null {
  if (value === null || reference === null || !(reference > 0)) return null;
  return `${Number((value / reference).toPrecision(2))}×`;
}

/** What choosing `p` instead of the best gives up on the metric, in the test's own terms. */
function givesUp(p: Pick, best: Pick, label: string): string {
  const v = p.versus_best;
  if (!v) return `an unknown amount of ${label} (it shares no question with ${best.system})`;
  const loss = `${Math.max(0, -v.diff).toFixed(3)} of ${label}`;
  const c = {
    n: v.n,
    differing: v.differing,
    diff: { mean: v.diff, low: v.low, high: v.high },
    p_value: v.p_value,
  };
  const measured = `${signed(v.diff)} ${intervalClause(c)} against ${best.system}`;
  switch (v.verdict) {
    case "same":
      return `nothing in ${label}: it does not differ from ${best.system} on any of the ${v.n} questions`;
    case "too_few":
      return `${loss} (${measured}; ${tooFewClause(c)})`;
    default:
      return `${loss} (${measured}; a loss of up to ${
        Math.max(0, -v.low).toFixed(3)
      } fits the data)`;
  }
}

function describe(p: Pick, label: string): string {
  const parts = [`${label} ${fmt(p.score)} [${fmt(p.low)}, ${fmt(p.high)}]`];
  if (p.cost_per_question !== null) parts.push(`$${p.cost_per_question.toPrecision(3)}/question`);
  if (p.p50_latency_ms !== null) parts.push(`p50 ${p.p50_latency_ms.toFixed(1)} ms`);
  return `${p.system} (${parts.join(", ")})`;
}

/** Systems whose every question errored, each with its first error: the first thing to read. */
function deadWarnings(systems: readonly RecommendationSystem[]): string[] {
  return systems.filter((s) => s.questions > 0 && s.errors === s.questions).map((s) =>
    `${s.system}: every question errored (${s.errors} of ${s.questions}), so its figures mean nothing; the first error: ${
      oneLine(s.first_error ?? "(no message)")
    }`
  );
}

function systemWarnings(systems: readonly RecommendationSystem[]): string[] {
  const warnings: string[] = [];
  for (const s of systems) {
    const dead = s.questions > 0 && s.errors === s.questions;
    if (!dead && s.questions > 0 && s.errors / s.questions > ERROR_RATE_WARNING) {
      warnings.push(
        `${s.system}: ${s.errors} of ${plural(s.questions, "question")} errored (${
          pct(s.errors / s.questions)
        }); its scores count them as 0`,
      );
    }
    if (s.best_effort_rate !== null && s.best_effort_rate > BEST_EFFORT_WARNING) {
      warnings.push(
        `${s.system}: ${
          pct(s.best_effort_rate)
        } of answers were best effort (a limit stopped the agent)`,
      );
    }
    if (s.budget_exhausted > 0) {
      warnings.push(
        `${s.system}: a per-question budget ran out on ${plural(s.budget_exhausted, "question")}`,
      );
    }
    for (const t of s.tool_cuts ?? []) {
      if (t.calls > 0 && t.truncated / t.calls > TOOL_CUT_WARNING) {
        warnings.push(
          `${s.system}: ${t.tool} output was cut to tools.max_output_chars in ${t.truncated} of ` +
            `${plural(t.calls, "call")} (${
              pct(t.truncated / t.calls)
            }); the model read only part of it (only what it read counts as retrieved): ` +
            `raise tools.max_output_chars`,
        );
      }
    }
    if (s.network_tools.length) {
      warnings.push(
        `${s.system} uses network tools (${
          s.network_tools.join(", ")
        }): its results depend on remote services and may not reproduce`,
      );
    }
  }
  return warnings;
}

/** Warns when the two best systems cannot be told apart, in the words of their comparison. */
function noiseWarning(systems: readonly string[], stats: RunStats): string | null {
  const ranked = stats.systems.filter((s) => systems.includes(s.system) && s.score)
    .sort((x, y) => y.score!.mean - x.score!.mean);
  if (ranked.length < 2) return null;
  const pair = pairOf(stats, ranked[0].system, ranked[1].system);
  if (!pair) return null;
  const verdict = verdictOf(pair.score);
  if (verdict === "higher" || verdict === "lower") return null;
  return comparisonSentence(pair);
}

/** A message on one line, cut to 300 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

function fmt(x: number): string {
  return x.toFixed(3);
}

function pct(x: number): string {
  return `${Math.round(x * 100)} %`;
}
