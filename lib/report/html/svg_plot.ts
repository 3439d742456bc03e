/**
 * Scatter plots as SVG text, rendered when the report is written (no script,
 * no font fetched at view time): one point per system, and the Pareto front
 * — the systems no other system beats on both axes — joined by a dashed
 * line. Labels never overprint (`plot_labels.ts`): systems at the same spot
 * share one label, each label is placed where it touches no other label,
 * point or text, and a label that fits nowhere becomes a number beside its
 * points, keyed under the plot.
 *
 * Own code rather than a charting library: Vega renders to SVG under Deno
 * with no permissions, but its label placement needs a canvas (the native
 * `canvas` addon) and throws without one, and its canvas-free mode hides the
 * labels it cannot place; that, for two plots of a few points, was not worth
 * some forty packages and a second of loading (see docs/architecture.md).
 *
 * @module
 */

import { type Html, joinHtml, markup } from "./html.ts";
import type { Segment } from "./label_layout.ts";
import { plotLabels } from "./plot_labels.ts";
import { type Axis, formatMs, linearAxis, logAxis } from "./plot_axis.ts";

/** One system's point. */
export interface PlotPoint {
  label: string;
  /** Cost or latency: lower is better. */
  x: number;
  /** Score: higher is better. */
  y: number;
}

/** Axis titles and the plot's accessible name. */
export interface PlotOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  /** What lower x means, for the axis and the front's legend: "cheaper", "faster". */
  better: string;
  /** A logarithmic x axis (latency); linear from 0 otherwise. */
  logX?: boolean;
  /** Formats an x value (ticks and tooltips). */
  formatX?: (x: number) => string;
}

const WIDTH = 560;
const HEIGHT = 350;
const MARGIN = { left: 56, right: 26, top: 34, bottom: 60 };
const FONT = 11.5;
const HEADROOM = 10;
const RADIUS = { front: 6, other: 4.5 };
/** Points whose centres are closer than this (pixels) share a label. */
const SAME_SPOT = 6;

/**
 * Labels of the points on the Pareto front (lower x and higher y are
 * better), in increasing x: a point is on it when no other point has x ≤
 * and y ≥ with at least one strict.
 */
export function paretoFront(points: readonly PlotPoint[]): string[] {
  const front = points.filter((p) =>
    !points.some((q) => q !== p && q.x <= p.x && q.y >= p.y && (q.x < p.x || q.y > p.y))
  );
  return [...front].sort((a, b) => a.x - b.x || b.y - a.y).map((p) => p.label);
}

/**
 * The plot as a `<figure>`: the `<svg>`, then the key of the points labelled
 * by number. Points with a non-finite coordinate are left out.
 */
export function scatterPlot(points: readonly PlotPoint[], options: PlotOptions): Html {
  const shown = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const formatX = options.formatX ?? (options.logX ? formatMs : (x: number) => x.toPrecision(2));
  const xs = shown.map((p) => p.x);
  const axis = options.logX ? logAxis(xs, formatX) : linearAxis(xs, formatX);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number) => MARGIN.left + axis.position(x) * plotW;
  // A little room above 1, so that a perfect score is not drawn on the frame.
  const sy = (y: number) =>
    MARGIN.top + HEADROOM + (1 - Math.min(1, Math.max(0, y))) * (plotH - HEADROOM);
  const front = new Set(paretoFront(shown));
  const pixels = shown.map((p) => ({
    ...p,
    px: sx(p.x),
    py: sy(p.y),
    r: front.has(p.label) ? RADIUS.front : RADIUS.other,
  }));
  const frontPath = pixels.filter((p) => front.has(p.label)).sort((a, b) => a.x - b.x || b.y - a.y);
  const frontSegments: Segment[] = frontPath.slice(1).map((p, i) => ({
    x1: frontPath[i].px,
    y1: frontPath[i].py,
    x2: p.px,
    y2: p.py,
  }));
  const labelled = plotLabels(pixels, {
    // In the plot and its top and right margins, off the legend, ticks and axis titles.
    area: {
      x0: MARGIN.left + 2,
      y0: LEGEND_BOTTOM + 2,
      x1: WIDTH - 2,
      y1: HEIGHT - MARGIN.bottom - 2,
    },
    fontSize: FONT,
    sameSpot: SAME_SPOT,
    soft: frontSegments,
  });
  const line = frontSegments.length
    ? markup`<polyline points="${frontPath.map((p) => `${r(p.px)},${r(p.py)}`).join(" ")}" 
      class="front"/>`
    : "";
  const circles = pixels.map((p) => {
    const where = axis.below(p.x) ? " (drawn at the axis' left end)" : "";
    const tip = `${p.label}: ${formatX(p.x)}${where}, ${options.yLabel} ${p.y.toFixed(3)}`;
    const cls = front.has(p.label) ? "point on-front" : "point";
    return markup`<circle cx="${r(p.px)}" cy="${r(p.py)}" r="${p.r}" class="${cls}">
      <title>${tip}</title></circle>`;
  });
  const svg = markup`<svg xmlns="http://www.w3.org/2000/svg" class="plot" 
    viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" 
    aria-label="${options.title}"><title>${options.title}</title>
    ${frame(axis, options, { sx, sy, plotW, plotH })}
    ${line}${circles}${labelled.marks}
    ${legend(options.better, frontSegments.length > 0)}
  </svg>`;
  const key = labelled.key.map((k) => {
    const xs = span(k.points.map((p) => p.x), formatX);
    const ys = span(k.points.map((p) => p.y), (y) => y.toFixed(3));
    const note = k.drawn ? "" : "; not marked: no room, hover the points";
    return markup`<li value="${k.number}">${k.points.map((p) => p.label).join(", ")} 
      <small>(${xs}, ${ys}${note})</small></li>`;
  });
  return markup`<figure class="plot">${svg}${
    key.length ? markup`<ol class="plot-key">${key}</ol>` : ""
  }</figure>`;
}

/** The frame, grid, ticks and axis titles. */
function frame(
  axis: Axis,
  options: PlotOptions,
  at: { sx: (x: number) => number; sy: (y: number) => number; plotW: number; plotH: number },
): Html {
  const { left, top } = MARGIN;
  const bottom = top + at.plotH;
  const right = left + at.plotW;
  const parts: Html[] = [
    markup`<rect x="${left}" y="${top}" width="${at.plotW}" height="${at.plotH}" class="frame"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = r(at.sy(i / 4));
    parts.push(
      markup`<line x1="${left}" x2="${right}" y1="${y}" y2="${y}" class="grid"/>`,
      markup`<text x="${left - 8}" y="${r(at.sy(i / 4) + 4)}" text-anchor="end" 
        class="tick">${(i / 4).toFixed(2)}</text>`,
    );
  }
  for (const tick of axis.ticks) {
    const x = r(at.sx(tick.value));
    parts.push(
      markup`<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" class="grid"/>`,
      markup`<text x="${x}" y="${
        bottom + 16
      }" text-anchor="middle" class="tick">${tick.label}</text>`,
    );
  }
  const title = `${options.xLabel}${axis.log ? " (log scale)" : ""}`;
  parts.push(
    markup`<text x="${left}" y="${bottom + 34}" class="direction">← ${options.better}</text>`,
    markup`<text x="${left + at.plotW / 2}" y="${HEIGHT - 8}" text-anchor="middle" 
      class="axis">${title}</text>`,
    markup`<text transform="translate(14 ${top + at.plotH / 2}) rotate(-90)" 
      text-anchor="middle" class="axis">${options.yLabel} (higher is better)</text>`,
  );
  return joinHtml(parts);
}

/** The legend's baseline, and the bottom of its text. */
const LEGEND_BASELINE = 18;
const LEGEND_BOTTOM = LEGEND_BASELINE + 4;

/** What the blue points (and the dashed line joining them, when there is one) are. */
function legend(better: string, withLine: boolean): Html {
  const y = LEGEND_BASELINE - 4;
  const x = MARGIN.left + (withLine ? 36 : 14);
  return markup`${
    withLine
      ? markup`<line x1="${MARGIN.left}" x2="${
        MARGIN.left + 28
      }" y1="${y}" y2="${y}" class="front"/>`
      : ""
  }<circle cx="${MARGIN.left + (withLine ? 14 : 4)}" cy="${y}" r="4" class="legend-dot"/>
    <text x="${x}" y="${LEGEND_BASELINE}" class="legend">Pareto front: no other system is both 
    better and ${better}</text>`;
}

/** "0.3", or "0.3–0.5" for values that differ as written. */
function span(values: readonly number[], format: (v: number) => string): string {
  const low = format(Math.min(...values));
  const high = format(Math.max(...values));
  return low === high ? low : `${low}–${high}`;
}

function r(n: number): string {
  return n.toFixed(1);
}
