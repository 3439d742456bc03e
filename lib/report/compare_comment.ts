/**
 * `ragbench compare --format md|json`: the comparison of two runs as a
 * pull-request comment (Markdown) or as data (JSON) — per system the change
 * B − A with its 95 % interval, p-value and verdict, the smallest drop the
 * CI gate could have called a regression, cost and latency, then the change
 * of the headline retrieval metrics, and the gate's outcome. A figure
 * computed on rankings cut below its cut-off is marked `*` with the run's
 * footnote (`compare_depth.ts`; in JSON `depth`, `shallow` and
 * `depth_notes`). Every verdict,
 * interval and p-value is the one paired test of `lib/score/significance.ts`,
 * and every sentence comes from `verdict_text.ts`, so the comment says what
 * the console, `summary.md` and `report.html` say.
 *
 * The smallest detectable drop: the gate fails a system when its change is
 * below −X (`--fail-on-regression X`) and its interval lies wholly below 0.
 * A drop has an interval below 0 when it exceeds the minimum detectable
 * difference (the smallest difference the test separates from 0 at this
 * spread of per-question differences), so the smallest drop the gate could
 * have caught is the larger of X and that difference. Without a gate it is
 * the minimum detectable difference alone; with fewer than six questions
 * differing no drop is detectable.
 *
 * @module
 */

import type { MetricDelta, RunDelta, SystemDelta } from "../score/run_delta.ts";
import { type PairedComparison, verdictOf } from "../score/significance.ts";
import { compareDepthNotes, depthMarks } from "./compare_depth.ts";
import { markdownText } from "./markdown_text.ts";
import {
  comparisonSentence,
  formatP,
  metricLabel,
  signed,
  small,
  tooFewRule,
} from "./verdict_text.ts";

/** What the comment is written from. */
export interface CompareInput {
  baseline: { dir: string; name: string };
  candidate: { dir: string; name: string };
  delta: RunDelta;
  /** Changes of the headline retrieval metrics, every system that has them. */
  retrieval: readonly MetricDelta[];
  /** `--fail-on-regression`; null without a gate. */
  threshold: number | null;
  /** Systems the gate fails (empty without a gate). */
  regressions: readonly string[];
  /** What a reader should know first (a mock run against a live one, a changed model). */
  warnings: readonly string[];
}

/** The JSON document's version. */
export const COMPARE_FORMAT = "ragbench-compare/1";

/** A change B − A as the JSON gives it. */
export interface ChangeJson {
  metric: string;
  /** Questions both runs have a value for. */
  shared: number;
  a: number | null;
  b: number | null;
  /** Mean of B − A with the 95 % interval of the paired test; null when no question is shared. */
  change: { mean: number; low: number; high: number } | null;
  p_value: number | null;
  verdict: "same" | "too_few" | "undecided" | "higher" | "lower" | null;
  /** The sentence every ragbench output uses for this comparison. */
  sentence: string | null;
  /**
   * Per run, the fewest documents a ranking of the system held when its
   * retriever's `top_k` cut it short; null when none was cut.
   */
  depth: { a: number | null; b: number | null };
  /**
   * Per run, whether the figure counts fewer documents than its cut-off
   * names (its depth is below the cut-off): the text and Markdown mark it `*`.
   */
  shallow: { a: boolean; b: boolean };
}

/** One system in the JSON. */
export interface SystemJson extends ChangeJson {
  system: string;
  /** Smallest difference the test separates from 0 at this spread; null when not decidable. */
  min_detectable_difference: number | null;
  /** The larger of the gate's threshold and the minimum detectable difference (see the module). */
  smallest_detectable_regression: number | null;
  /** The gate fails this system. */
  regression: boolean;
  cost_per_question: { a: number | null; b: number | null };
  p50_latency_ms: { a: number | null; b: number | null };
  /** Changes of the headline retrieval metrics other than `metric`. */
  retrieval: ChangeJson[];
}

/** The JSON document. */
export interface CompareJson {
  format: typeof COMPARE_FORMAT;
  baseline: { dir: string; name: string };
  candidate: { dir: string; name: string };
  gate: { threshold: number | null; passed: boolean | null; regressions: string[] };
  systems: SystemJson[];
  only_in_baseline: string[];
  only_in_candidate: string[];
  warnings: string[];
  /** Why figures are shallow (`shallow`), the footnotes of the text and Markdown. */
  depth_notes: string[];
}

/** The comparison as data. */
export function compareJson(input: CompareInput): CompareJson {
  return {
    format: COMPARE_FORMAT,
    baseline: input.baseline,
    candidate: input.candidate,
    gate: {
      threshold: input.threshold,
      passed: input.threshold === null ? null : input.regressions.length === 0,
      regressions: [...input.regressions],
    },
    systems: input.delta.systems.map((s) => {
      const mde = s.score?.mde ?? null;
      return {
        system: s.system,
        ...changeJson(s),
        min_detectable_difference: mde,
        smallest_detectable_regression: detectable(s.score, input.threshold),
        regression: input.regressions.includes(s.system),
        cost_per_question: { a: s.costA, b: s.costB },
        p50_latency_ms: { a: s.p50A, b: s.p50B },
        retrieval: retrievalOf(input, s).map(changeJson),
      };
    }),
    only_in_baseline: [...input.delta.onlyA],
    only_in_candidate: [...input.delta.onlyB],
    warnings: [...input.warnings],
    depth_notes: compareDepthNotes(shownChanges(input)),
  };
}

/** The comparison as a pull-request comment. */
export function compareMarkdown(input: CompareInput): string {
  const { baseline, candidate, threshold } = input;
  const names = candidate.name === baseline.name
    ? markdownText(candidate.name)
    : `${markdownText(candidate.name)} against ${markdownText(baseline.name)}`;
  const out = [
    `### ragbench compare: ${names}`,
    "",
    `Baseline (A): ${markdownText(baseline.dir)} · candidate (B): ${
      markdownText(candidate.dir)
    } · changes are B − A.`,
    "",
    gateLine(input),
    "",
  ];
  for (const w of input.warnings) out.push(`> **Warning:** ${markdownText(w)}`, "");
  const gated = threshold !== null;
  const header = [
    "system",
    "metric",
    "A",
    "B",
    "change [95 % CI]",
    "p",
    "verdict",
    gated ? "smallest drop the gate could catch" : "smallest detectable drop",
    "$/question A → B",
    "p50 ms A → B",
  ];
  out.push(
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i < 2 || i === 6 ? "---" : "---:")).join(" | ")} |`,
  );
  for (const s of input.delta.systems) {
    const failed = input.regressions.includes(s.system);
    const mark = mdMarks(s);
    out.push(row([
      failed ? `**${markdownText(s.system)}** (regression)` : markdownText(s.system),
      metricLabel(s.metric),
      fixed(s.scoreA) + mark.a,
      fixed(s.scoreB) + mark.b,
      change(s.score, mark.change),
      s.score ? formatP(s.score.p_value) : "-",
      verdictWords(s.score),
      detectableCell(s.score, threshold),
      `${money(s.costA)} → ${money(s.costB)}`,
      `${fixed(s.p50A, 1)} → ${fixed(s.p50B, 1)}`,
    ]));
  }
  out.push(...retrievalTable(input));
  const depths = compareDepthNotes(shownChanges(input));
  if (depths.length) out.push("", ...depths.map((n) => `\\* ${markdownText(n)}`));
  const only = [
    ...input.delta.onlyA.map((s) => `only in A: ${markdownText(s)}`),
    ...input.delta.onlyB.map((s) => `only in B: ${markdownText(s)}`),
  ];
  if (only.length) out.push("", ...only.map((o) => `- ${o}`));
  // Every change in words, those with no differing question named together at the end.
  const changes = input.delta.systems.flatMap((s) => [s, ...retrievalOf(input, s)]);
  const moved = changes.filter((c) => c.score && c.score.differing > 0);
  const still = input.delta.systems.filter((s) => s.score && s.score.differing === 0);
  out.push(
    "",
    "<details><summary>Each change in words</summary>",
    "",
    ...moved.map((c) => `- ${markdownText(sentenceOf(c)!)}`),
    ...[...new Set(still.map((s) => s.metric))].map((m) =>
      `- Unchanged on every question (${metricLabel(m)}): ${
        still.filter((s) => s.metric === m).map((s) => markdownText(s.system)).join(", ")
      }.`
    ),
    "",
    detectableNote(threshold),
    "",
    "</details>",
  );
  return out.join("\n") + "\n";
}

/**
 * One row per system with retrieval metrics: each metric A → B and its
 * change, with the verdict when the change is significant.
 */
function retrievalTable(input: CompareInput): string[] {
  const rows = input.delta.systems.map((s) => ({ s, changes: retrievalOf(input, s) }))
    .filter((r) => r.changes.length > 0);
  if (rows.length === 0) return [];
  const metrics = [...new Set(rows.flatMap((r) => r.changes.map((c) => c.metric)))];
  const header = [
    "system",
    ...metrics.flatMap((m) => [`${metricLabel(m)} A → B`, "change [95 % CI]"]),
  ];
  return [
    "",
    "**Retrieval**",
    "",
    row(header),
    row(header.map((_, i) => (i === 0 ? "---" : "---:"))),
    ...rows.map(({ s, changes }) =>
      row([
        markdownText(s.system),
        ...metrics.flatMap((m) => {
          const c = changes.find((x) => x.metric === m);
          if (!c) return ["-", "-"];
          const verdict = c.score ? verdictOf(c.score) : null;
          const said = verdict === "higher" || verdict === "lower"
            ? ` ${verdictWords(c.score)}`
            : "";
          const mark = mdMarks(c);
          return [
            `${fixed(c.scoreA)}${mark.a} → ${fixed(c.scoreB)}${mark.b}`,
            `${change(c.score, mark.change)}${said}`,
          ];
        }),
      ])
    ),
  ];
}

/** Every change the comment shows: each system's, then its headline retrieval changes. */
function shownChanges(input: CompareInput): MetricDelta[] {
  return input.delta.systems.flatMap((s) => [s, ...retrievalOf(input, s)]);
}

/** The depth marks of `d` escaped for Markdown (a bare `*` would start emphasis). */
function mdMarks(d: MetricDelta): { a: string; b: string; change: string } {
  const mark = depthMarks(d);
  const md = (m: string) => (m ? "\\*" : "");
  return { a: md(mark.a), b: md(mark.b), change: md(mark.change) };
}

/** The headline retrieval changes of system `s`, less the metric it is compared on. */
function retrievalOf(input: CompareInput, s: SystemDelta): MetricDelta[] {
  return input.retrieval.filter((r) => r.system === s.system && r.metric !== s.metric);
}

function changeJson(d: MetricDelta): ChangeJson {
  return {
    metric: d.metric,
    shared: d.shared,
    a: d.scoreA,
    b: d.scoreB,
    change: d.score ? { ...d.score.diff } : null,
    p_value: d.score?.p_value ?? null,
    verdict: d.score ? verdictOf(d.score) : null,
    sentence: sentenceOf(d),
    depth: { a: d.depthA, b: d.depthB },
    shallow: { a: depthMarks(d).a !== "", b: depthMarks(d).b !== "" },
  };
}

/** The sentence of `verdict_text.ts` for the system in B against itself in A. */
function sentenceOf(d: MetricDelta): string | null {
  if (!d.score) return null;
  const text = comparisonSentence({
    a: `${d.system} in B`,
    b: `${d.system} in A`,
    score: d.score,
    accuracy: null,
  });
  return d.metric === "answer_score" ? text : `${metricLabel(d.metric)}: ${text}`;
}

/** The smallest drop the gate could have called a regression (see the module); null if none. */
export function detectable(
  score: PairedComparison | null,
  threshold: number | null,
): number | null {
  if (!score || score.mde === null) return null;
  return Math.max(threshold ?? 0, score.mde);
}

function detectableCell(score: PairedComparison | null, threshold: number | null): string {
  if (!score) return "-";
  const value = detectable(score, threshold);
  if (value === null) return `n/a (${score.differing} of ${score.n} differ)`;
  return small(value);
}

function detectableNote(threshold: number | null): string {
  const mde = "the minimum detectable difference (the smallest difference the test separates " +
    "from 0 at this spread of per-question differences)";
  const none = `"n/a": ${tooFewRule()} questions.`;
  return threshold === null
    ? `Smallest detectable drop: ${mde}; a smaller drop cannot be told from noise here. ${none}`
    : `Smallest drop the gate could catch: the larger of --fail-on-regression (${threshold}) and ${mde}. ${none}`;
}

function gateLine(input: CompareInput): string {
  if (input.threshold === null) {
    return "No gate: `--fail-on-regression X` fails on a drop larger than X whose 95 % interval " +
      "lies below zero.";
  }
  if (input.regressions.length === 0) {
    return `**Gate passed:** no system dropped by more than ${input.threshold} with its 95 % ` +
      "interval below zero.";
  }
  return `**Gate failed:** ${
    input.regressions.map(markdownText).join(", ")
  } dropped by more than ${input.threshold} with the 95 % interval below zero.`;
}

/** The verdict of B − A in a few words (the console table's words). */
export function verdictWords(score: PairedComparison | null): string {
  if (!score) return "not compared";
  switch (verdictOf(score)) {
    case "same":
      return "no change";
    case "too_few":
      return `too few differ (${score.differing})`;
    case "undecided":
      return "no significant change";
    case "higher":
      return "B higher";
    case "lower":
      return "B lower";
  }
}

function change(score: PairedComparison | null, mark = ""): string {
  return score
    ? `${signed(score.diff.mean)}${mark} [${signed(score.diff.low)}, ${signed(score.diff.high)}]`
    : "-";
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function fixed(v: number | null, digits = 3): string {
  return v === null ? "-" : v.toFixed(digits);
}

/** Mean cost per question; `?` when unknown (a model with no known price), never $0. */
function money(v: number | null): string {
  return v === null ? "?" : `$${v.toPrecision(3)}`;
}
