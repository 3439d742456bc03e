/**
 * Scatter plots as SVG text, rendered when the report is written (no script,
 * no font fetched at view time): one point per system, and the Pareto front
 * — the systems no other system beats on both axes — joined by a dashed
 * line. Labels never overprint: systems at the same spot share one label,
 * each label is placed where it touches no other label, point or text
 * (`label_layout.ts`), and a label that fits nowhere becomes a number beside
 * its point, keyed under the plot.
 *
 * Own code rather than a charting library: Vega renders to SVG under Deno
 * with no permissions, but its label placement needs a canvas (the native
 * `canvas` addon) and throws without one, and its canvas-free mode hides the
 * labels it cannot place; that, for two plots of a few points, was not worth
 * some forty packages and a second of loading (see docs/architecture.md).
 *
 * @module
 */

import { type Html, html, joinHtml, raw } from "./html.ts";
import {
  type Box,
  clusterPoints,
  type LabelPoint,
  type PlacedLabel,
  placeLabels,
  type Segment,
} from "./label_layout.ts";
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
const SAME_SPOT = 3;

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
  const groups = clusterPoints(pixels.map((p) => ({ x: p.px, y: p.py })), SAME_SPOT);
  const labelled = labels(groups.map((g) => g.map((i) => pixels[i])), frontSegments);
  const svg = html`
    <svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="${WIDTH}" height="${HEIGHT}" role="img"
      aria-label="${options.title}"><title>${options.title}</title>${frame(axis, options, {
        sx,
        sy,
        plotW,
        plotH,
      })}${frontSegments.length
        ? html`
          <polyline points="${frontPath.map((p) => `${r(p.px)},${r(p.py)}`).join(
            " ",
          )}" class="front" />
        `
        : ""}${pixels.map((p) =>
          html`
            <circle cx="${r(p.px)}" cy="${r(p.py)}" r="${p.r}" class="${front.has(p.label)
              ? "point on-front"
              : "point"}">
              <title>${`${p.label}: ${formatX(p.x)}${
                axis.below(p.x) ? " (drawn at the axis' left end)" : ""
              }, ${options.yLabel} ${p.y.toFixed(3)}`}</title>
            </circle>
          `
        )}${labelled.marks}${legend(options.better, frontSegments.length > 0)}</svg>
  `;
  const key = labelled.key.length
    ? html`<ol class="plot-key">${
      labelled.key.map((k) =>
        html`<li value="${k.number}">${k.names.join(", ")} <small>(${`${formatX(k.x)}, ${
          k.y.toFixed(3)
        }`})</small></li>`
      )
    }</ol>`
    : "";
  return html`<figure class="plot">${svg}${key}</figure>`;
}

interface Pixel extends PlotPoint {
  px: number;
  py: number;
  r: number;
}

/** The labels' marks, and the key of those placed as numbers. */
function labels(
  groups: readonly Pixel[][],
  soft: readonly Segment[],
): { marks: Html; key: Array<{ number: number; names: string[]; x: number; y: number }> } {
  // Labels stay in the plot, its top and right margins, off the legend, ticks and axis titles.
  const area: Box = {
    x0: MARGIN.left + 2,
    y0: LEGEND_BOTTOM + 2,
    x1: WIDTH - 2,
    y1: HEIGHT - MARGIN.bottom - 2,
  };
  const asPoint = (g: readonly Pixel[], text: string): LabelPoint => ({
    x: g[0].px,
    y: g[0].py,
    r: Math.max(...g.map((p) => p.r)),
    text,
  });
  const markers = groups.flatMap((g) => g.slice(1).map((p) => asPoint([p], "")));
  const first = placeLabels(groups.map((g) => asPoint(g, g.map((p) => p.label).join(", "))), {
    area,
    fontSize: FONT,
    markers,
    soft,
  });
  const missing = groups.map((g, i) => ({ g, i })).filter(({ i }) => first[i] === null)
    .sort((a, b) => a.g[0].px - b.g[0].px || a.g[0].py - b.g[0].py);
  const numbers = placeLabels(missing.map(({ g }, n) => asPoint(g, String(n + 1))), {
    area,
    fontSize: FONT,
    markers,
    avoid: first.flatMap((p) => (p ? [p.box] : [])),
    lines: first.flatMap((p) => (p?.leader ? [p.leader] : [])),
    soft,
  });
  const marks = [
    ...groups.map((g, i) => first[i] && labelMark(first[i]!, g.map((p) => p.label).join(", "))),
    ...missing.map((_, n) => numbers[n] && labelMark(numbers[n]!, String(n + 1), "key-number")),
  ];
  return {
    marks: joinHtml(marks.filter((m) => m !== null)),
    key: missing.map(({ g }, n) => ({
      number: n + 1,
      names: g.map((p) => p.label),
      x: g[0].x,
      y: g[0].y,
    })),
  };
}

function labelMark(place: PlacedLabel, text: string, extra = ""): Html {
  return html`${
    place.leader
      ? html`
        <line x1="${r(place.leader.x1)}" y1="${r(place.leader.y1)}" x2="${r(
          place.leader.x2,
        )}" y2="${r(place.leader.y2)}" class="leader" />
      `
      : ""
  }<text x="${r(place.x)}" y="${r(place.baseline)}" class="${
    extra ? `label ${extra}` : "label"
  }">${text}</text>`;
}

/** The frame, grid, ticks and axis titles. */
function frame(
  axis: Axis,
  options: PlotOptions,
  at: { sx: (x: number) => number; sy: (y: number) => number; plotW: number; plotH: number },
): Html {
  const bottom = MARGIN.top + at.plotH;
  const parts: Html[] = [
    html`
      <rect x="${MARGIN.left}" y="${MARGIN.top}" width="${at.plotW}" height="${at
        .plotH}" class="frame" />
    `,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = r(at.sy(i / 4));
    parts.push(
      html`
        <line x1="${MARGIN.left}" x2="${MARGIN.left + at.plotW}" y1="${y}" y2="${y}" class="grid" />
      `,
      html`<text x="${MARGIN.left - 8}" y="${r(at.sy(i / 4) + 4)}" text-anchor="end" class="tick">${
        (i / 4).toFixed(2)
      }</text>`,
    );
  }
  for (const tick of axis.ticks) {
    const x = r(at.sx(tick.value));
    parts.push(
      html`
        <line x1="${x}" x2="${x}" y1="${MARGIN.top}" y2="${bottom}" class="grid" />
      `,
      html`<text x="${x}" y="${
        bottom + 16
      }" text-anchor="middle" class="tick">${tick.label}</text>`,
    );
  }
  const title = `${options.xLabel}${axis.log ? " (log scale)" : ""}`;
  parts.push(
    html`<text x="${MARGIN.left}" y="${bottom + 34}" class="direction">← ${options.better}</text>`,
    html`<text x="${MARGIN.left + at.plotW / 2}" y="${
      HEIGHT - 8
    }" text-anchor="middle" class="axis">${title}</text>`,
    html`
      <text transform="translate(14 ${MARGIN.top + at.plotH / 2}) rotate(-90)" text-anchor="middle"
        class="axis">${options.yLabel} (higher is better)</text>
    `,
  );
  return joinHtml(parts);
}

/** The legend's baseline, and the bottom of its text. */
const LEGEND_BASELINE = 18;
const LEGEND_BOTTOM = LEGEND_BASELINE + 4;

function legend(better: string, withFront: boolean): Html {
  if (!withFront) return raw("");
  const text = `Pareto front: no other system is both better and ${better}`;
  return html`
    <line x1="${MARGIN.left}" x2="${MARGIN.left + 22}" y1="${LEGEND_BASELINE -
      4}" y2="${LEGEND_BASELINE - 4}" class="front" />
    <text x="${MARGIN.left + 28}" y="${LEGEND_BASELINE}" class="legend">${text}</text>
  `;
}

function r(n: number): string {
  return n.toFixed(1);
}
