/**
 * The recommendation at the end of a run: the best-scoring system, then the
 * cheapest and the fastest system whose answer score is not significantly
 * below the best's, with warnings a
 * reader should see before trusting the choice. Pure: it reads summaries and
 * statistics and returns data plus the sentences the console, `summary.md`
 * and the HTML report print. Written to `recommendation.json`.
 *
 * @module
 */

import { pairOf, type PairStats, type RunStats } from "../score/comparison.ts";

/** Significance level of "significantly below". */
export const ALPHA = 0.05;
/** An error rate above this is warned about. */
export const ERROR_RATE_WARNING = 0.05;
/** A best-effort rate above this is warned about. */
export const BEST_EFFORT_WARNING = 0.2;
/** A tool whose outputs were cut to `tools.max_output_chars` more often than this is warned about. */
export const TOOL_CUT_WARNING = 0.1;

/** What the recommendation needs to know of each system. */
export interface RecommendationSystem {
  system: string;
  /** Model id, when the system calls a model. */
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
}

/** A system picked for one reason. */
export interface Pick {
  system: string;
  score: number;
  low: number;
  high: number;
  cost_per_question: number | null;
  p50_latency_ms: number | null;
  /** Against the best system (absent for the best itself). */
  versus_best?: { diff: number; low: number; high: number; p_value: number };
}

/** The recommendation, as written to `recommendation.json`. */
export interface Recommendation {
  best: Pick | null;
  cheapest: Pick | null;
  fastest: Pick | null;
  warnings: string[];
  /** The sentences to print, in order (the picks, then the warnings). */
  lines: string[];
}

/** Builds the recommendation; systems without an answer score are not ranked. */
export function recommend(
  systems: readonly RecommendationSystem[],
  stats: RunStats,
): Recommendation {
  const scored = stats.systems.filter((s) => s.score !== null);
  const info = new Map(systems.map((s) => [s.system, s]));
  const warnings = systemWarnings(systems);
  if (scored.length === 0) {
    return { best: null, cheapest: null, fastest: null, warnings, lines: warnings };
  }
  // Best mean score; ties go to the cheaper, then the earlier system.
  const best = [...scored].sort((x, y) =>
    y.score!.mean - x.score!.mean ||
    (info.get(x.system)?.cost_per_question ?? Infinity) -
      (info.get(y.system)?.cost_per_question ?? Infinity)
  )[0];
  const pick = (system: string): Pick => {
    const s = stats.systems.find((x) => x.system === system)!;
    const i = info.get(system);
    const out: Pick = {
      system,
      score: s.score!.mean,
      low: s.score!.low,
      high: s.score!.high,
      cost_per_question: i?.cost_per_question ?? null,
      p50_latency_ms: i?.p50_latency_ms ?? null,
    };
    if (system !== best.system) {
      const pair = pairOf(stats, system, best.system);
      if (pair) {
        out.versus_best = {
          diff: pair.score.diff.mean,
          low: pair.score.diff.low,
          high: pair.score.diff.high,
          p_value: pair.score.p_value,
        };
      }
    }
    return out;
  };
  const contenders = scored.filter((s) => {
    if (s.system === best.system) return true;
    const pair = pairOf(stats, s.system, best.system);
    return pair !== undefined && pair.score.p_value >= ALPHA && pair.score.diff.high >= 0;
  }).map((s) => s.system);
  const by = (key: "cost_per_question" | "p50_latency_ms") =>
    [...contenders].filter((name) => info.get(name)?.[key] != null).sort((x, y) =>
      info.get(x)![key]! - info.get(y)![key]! ||
      contenders.indexOf(x) - contenders.indexOf(y)
    )[0];
  const cheapestName = by("cost_per_question");
  const fastestName = by("p50_latency_ms");
  const result: Recommendation = {
    best: pick(best.system),
    cheapest: cheapestName === undefined ? null : pick(cheapestName),
    fastest: fastestName === undefined ? null : pick(fastestName),
    warnings,
    lines: [],
  };
  const noise = noiseWarning(scored.map((s) => s.system), stats);
  if (noise) warnings.push(noise);
  result.lines = [...pickLines(result), ...warnings.map((w) => `warning: ${w}`)];
  return result;
}

/**
 * One comparison as a sentence: "a beats b by 0.140 [+0.050, +0.240], p = 0.004
 * (n = 21)", "a trails b by ...", or "a is not distinguishable from b: ...".
 */
export function comparisonSentence(pair: PairStats): string {
  const { diff, p_value, n } = pair.score;
  const interval = `[${signed(diff.low)}, ${signed(diff.high)}], p = ${formatP(p_value)}`;
  if (p_value >= ALPHA) {
    return `${pair.a} is not distinguishable from ${pair.b}: difference ${
      signed(diff.mean)
    } ${interval} (n = ${n})`;
  }
  const verb = diff.mean > 0 ? "beats" : "trails";
  return `${pair.a} ${verb} ${pair.b} by ${fmt(Math.abs(diff.mean))} ${interval} (n = ${n})`;
}

/** A p-value as printed: three decimals, or "< 0.001". */
export function formatP(p: number): string {
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

function pickLines(r: Recommendation): string[] {
  const lines: string[] = [];
  const describe = (p: Pick) => {
    const parts = [`score ${fmt(p.score)} [${fmt(p.low)}, ${fmt(p.high)}]`];
    if (p.cost_per_question !== null) parts.push(`$${p.cost_per_question.toPrecision(3)}/question`);
    if (p.p50_latency_ms !== null) parts.push(`p50 ${p.p50_latency_ms.toFixed(1)} ms`);
    if (p.versus_best) {
      parts.push(
        `${signed(p.versus_best.diff)} vs best [${signed(p.versus_best.low)}, ${
          signed(p.versus_best.high)
        }], p = ${formatP(p.versus_best.p_value)}`,
      );
    }
    return `${p.system} (${parts.join(", ")})`;
  };
  if (r.best) lines.push(`best score: ${describe(r.best)}`);
  if (r.cheapest) {
    lines.push(
      r.cheapest.system === r.best?.system
        ? `cheapest not significantly below the best: ${r.cheapest.system} itself`
        : `cheapest not significantly below the best: ${describe(r.cheapest)}`,
    );
  }
  if (r.fastest) {
    lines.push(
      r.fastest.system === r.best?.system
        ? `fastest not significantly below the best: ${r.fastest.system} itself`
        : `fastest not significantly below the best: ${describe(r.fastest)}`,
    );
  }
  return lines;
}

function systemWarnings(systems: readonly RecommendationSystem[]): string[] {
  const warnings: string[] = [];
  for (const s of systems) {
    if (s.questions > 0 && s.errors / s.questions > ERROR_RATE_WARNING) {
      warnings.push(
        `${s.system}: ${s.errors} of ${s.questions} questions errored (${
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
        `${s.system}: a per-question budget ran out on ${s.budget_exhausted} questions`,
      );
    }
    for (const t of s.tool_cuts ?? []) {
      if (t.calls > 0 && t.truncated / t.calls > TOOL_CUT_WARNING) {
        warnings.push(
          `${s.system}: ${t.tool} output was cut to tools.max_output_chars in ${t.truncated} of ` +
            `${t.calls} calls (${
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

/** Warns when the two best systems cannot be told apart at this sample size. */
function noiseWarning(systems: readonly string[], stats: RunStats): string | null {
  const ranked = stats.systems.filter((s) => systems.includes(s.system) && s.score)
    .sort((x, y) => y.score!.mean - x.score!.mean);
  if (ranked.length < 2) return null;
  const pair = pairOf(stats, ranked[0].system, ranked[1].system);
  if (!pair || pair.score.p_value < ALPHA) return null;
  const mde = pair.score.mde;
  return `${ranked[0].system} and ${
    ranked[1].system
  } cannot be separated: with ${pair.score.n} questions` +
    (mde === null || mde === 0
      ? ", add questions or repeats to tell them apart"
      : `, differences under ${fmt(mde)} cannot be told from noise`);
}

function fmt(x: number): string {
  return x.toFixed(3);
}

function signed(x: number): string {
  const s = x.toFixed(3);
  return x > 0 ? `+${s}` : s === "-0.000" ? "0.000" : s;
}

function pct(x: number): string {
  return `${Math.round(x * 100)} %`;
}
