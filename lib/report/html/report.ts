/**
 * `report.html`: one self-contained page (inline style, inline SVG plots,
 * inline script and data; nothing fetched to view it) with the systems
 * table and its intervals, the recommendation, score-versus-cost and
 * score-versus-latency scatter plots with the Pareto front, the paired
 * comparison matrix, scores by question kind and tag, failure labels,
 * retrieval metrics, tool usage, every metric, and a per-question view with
 * each line's checks and trace. The output depends only on its input, so a
 * `--mock` run's report is the same every time apart from timing figures.
 *
 * @module
 */

import type { IndexingRecord } from "../../retrieval/registry.ts";
import type { RunStats } from "../../score/comparison.ts";
import type { Recommendation } from "../recommendation.ts";
import { metricLabel } from "../verdict_text.ts";
import { escapeHtml as h, scriptSafe } from "./escape.ts";
import { pageChunks, questionSection } from "./page.ts";
import { LineEmbedder, type ReportLine } from "./question_data.ts";
import {
  allMetricsSection,
  comparisonSection,
  indexingSection,
  recommendationSection,
  retrievalSection,
  summarySection,
  toolSection,
} from "./sections.ts";
import { breakdownSection, failureSection, stabilitySection } from "./question_sections.ts";
import { type Row, section } from "./tables.ts";
import { scatterPlot } from "./svg_plot.ts";
import { plural } from "../../util/plural.ts";

/** Everything the report shows. */
export interface ReportInput {
  run: { name: string; dir: string };
  systems: ReadonlyArray<{ name: string; type: string; model: string | null }>;
  /** Rows of `metrics_summary.csv` (any columns; `system` is required). */
  summaries: readonly Row[];
  /** Rows of `tool_usage.csv`. */
  toolUsage: readonly Row[];
  lines: readonly ReportLine[];
  stats: RunStats;
  recommendation: Recommendation;
  /** What embedding the passages cost, every session (run.json); none when absent. */
  indexing?: readonly IndexingRecord[];
  /** What the dollar figures mean (lib/report/cost_notes.ts), shown under the systems table. */
  costNotes?: readonly string[];
  /**
   * The per-question data, already built (a streaming reader builds it while
   * the full lines pass by, then keeps only slimmed lines); built from
   * `lines` when absent.
   */
  embedded?: LineEmbedder;
}

/** Renders the report as one string. */
export function renderReport(input: ReportInput): string {
  return [...reportChunks(input)].join("");
}

/** Renders the report in pieces, for writing a large report without one huge string. */
export function* reportChunks(input: ReportInput): Generator<string> {
  const names = input.systems.map((s) => s.name);
  const header = `<header><h1>ragbench report: ${h(input.run.name)}</h1><p class="meta">${
    plural(input.lines.length, "result line")
  } · ${plural(names.length, "system")} · run directory <code>${
    h(input.run.dir)
  }</code></p></header>`;
  const sections = [
    header,
    recommendationSection(input.recommendation),
    summarySection(input.systems, input.summaries, input.stats),
    (input.costNotes ?? []).map((n) => `<p class="note cost-note">${h(n)}</p>`).join(""),
    plotsSection(input),
    comparisonSection(names, input.stats),
    breakdownSection(names, input.lines),
    stabilitySection(names, input.lines),
    failureSection(names, input.lines),
    retrievalSection(input.summaries),
    toolSection(input.toolUsage, input.lines),
    indexingSection(input.indexing ?? []),
    allMetricsSection(input.summaries),
    questionSection(),
  ].filter((s) => s !== "");
  let embedded = input.embedded;
  if (!embedded) {
    embedded = new LineEmbedder(names);
    const known = new Set(names);
    for (const line of input.lines) if (known.has(line.system)) embedded.add(line);
  }
  const data = embedded;
  yield* pageChunks(
    `ragbench: ${input.run.name}`,
    sections,
    (function* () {
      for (const chunk of data.chunks()) yield scriptSafe(chunk);
    })(),
  );
}

function plotsSection(input: ReportInput): string {
  const score = new Map(input.stats.systems.map((s) => [s.system, s.score?.mean]));
  const points = (key: string) =>
    input.summaries.flatMap((row) => {
      const y = score.get(String(row.system));
      const x = row[key];
      return typeof x === "number" && typeof y === "number"
        ? [{ label: String(row.system), x, y }]
        : [];
    });
  const metric = input.stats.metric === "answer_score"
    ? "answer score"
    : metricLabel(input.stats.metric);
  const cost = points("cost_per_question");
  const latency = points("p50_latency_ms");
  if (cost.length === 0 && latency.length === 0) return "";
  return section(
    "plots",
    "Score against cost and latency",
    `<div class="plots">${
      cost.length
        ? scatterPlot(cost, {
          title: `${capital(metric)} against cost per question`,
          xLabel: "US dollars per question",
          yLabel: metric,
          formatX: (x) => (x === 0 ? "0" : `$${x.toPrecision(2)}`),
        })
        : ""
    }${
      latency.length
        ? scatterPlot(latency, {
          title: `${capital(metric)} against median latency`,
          xLabel: "p50 latency (ms)",
          yLabel: metric,
          formatX: (x) => (x >= 100 ? x.toFixed(0) : x.toPrecision(2)),
        })
        : ""
    }</div>`,
  );
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
