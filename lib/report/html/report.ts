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
import { retrievalHeadline } from "../retrieval_headline.ts";
import { metricLabel } from "../verdict_text.ts";
import { scriptSafe } from "./escape.ts";
import { type Html, markup } from "./html.ts";
import { matrixSection, pageChunks, questionSection } from "./page.ts";
import { type EmbeddedSource, LineEmbedder, type ReportLine } from "./question_data.ts";
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
  /** The run's `evaluation.retrieval_k`: which nDCG each question shows (default cut-offs when absent). */
  retrievalK?: readonly number[];
  /**
   * The per-question data when it comes from elsewhere (a reader of a large
   * results file streams it from the file again: `streamed_data.ts`); built
   * from `lines` when absent.
   */
  embedded?: EmbeddedSource;
}

/** Renders the report as one string. */
export function renderReport(input: ReportInput): string {
  return [...reportChunks(input)].join("");
}

/** Renders the report in pieces, for writing a large report without one huge string. */
export function* reportChunks(input: ReportInput): Generator<string> {
  const names = input.systems.map((s) => s.name);
  let data = input.embedded;
  if (!data) {
    const embedder = new LineEmbedder(names, { ndcg: retrievalHeadline(input.retrievalK).rank });
    const known = new Set(names);
    for (const line of input.lines) if (known.has(line.system)) embedder.add(line);
    data = embedder;
  }
  const ndcg = data.ndcg === null ? null : metricLabel(data.ndcg);
  const lines = plural(input.lines.length, "result line");
  const header = markup`<header><h1>ragbench report: ${input.run.name}</h1>
    <p class="meta">${lines} · ${plural(names.length, "system")} · run directory 
    <code>${input.run.dir}</code></p></header>`;
  const sections = [
    header,
    recommendationSection(input.recommendation),
    summarySection(input.systems, input.summaries, input.stats),
    markup`${(input.costNotes ?? []).map((n) => markup`<p class="note cost-note">${n}</p>`)}`,
    plotsSection(input),
    comparisonSection(names, input.stats),
    breakdownSection(names, input.lines),
    stabilitySection(names, input.lines),
    failureSection(names, input.lines),
    retrievalSection(input.summaries),
    toolSection(input.toolUsage, input.lines),
    indexingSection(input.indexing ?? []),
    allMetricsSection(input.summaries),
    matrixSection(),
    questionSection({ ndcg }),
  ].filter((s): s is Html => s !== "" && s.text !== "");
  yield* pageChunks(
    `ragbench: ${input.run.name}`,
    sections,
    (function* () {
      for (const chunk of data.chunks()) yield scriptSafe(chunk);
    })(),
    { ndcg },
  );
}

function plotsSection(input: ReportInput): Html | "" {
  const score = new Map(input.stats.systems.map((s) => [s.system, s.score?.mean]));
  const points = (key: string) =>
    input.summaries.flatMap((row) => {
      const y = score.get(String(row.system));
      const x = row[key];
      return typeof x === "number" && typeof y === "number"
        ? [{ label: String(row.system), x, y }]
        : [];
    });
  const answers = input.stats.metric === "answer_score";
  const metric = answers ? "answer score" : metricLabel(input.stats.metric);
  // "Answer score against …", "nDCG@10 against …" (a metric's own name keeps its case).
  const lead = answers ? "Answer score" : metric;
  const priced = points("cost_per_question");
  // When nothing costs anything (no model calls) a cost axis says nothing: no cost plot.
  const free = priced.length > 0 && priced.every((p) => p.x === 0);
  const cost = free ? [] : priced;
  const latency = points("p50_latency_ms");
  if (cost.length === 0 && latency.length === 0) return "";
  return section(
    "plots",
    "Score against cost and latency",
    markup`<div class="plots">${
      cost.length
        ? scatterPlot(cost, {
          title: `${lead} against cost per question`,
          xLabel: "US dollars per question",
          yLabel: metric,
          better: "cheaper",
          formatX: (x) => (x === 0 ? "$0" : `$${x.toPrecision(2)}`),
        })
        : ""
    }${
      latency.length
        ? scatterPlot(latency, {
          title: `${lead} against median latency`,
          xLabel: "p50 latency, ms",
          yLabel: metric,
          better: "faster",
          logX: true,
        })
        : ""
    }</div>${
      free
        ? markup`<p class="note">No plot against cost: every system cost $0 per question.</p>`
        : ""
    }`,
  );
}
