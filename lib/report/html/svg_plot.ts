/**
 * Scatter plots as SVG text, rendered when the report is written (no script,
 * no font fetched at view time): one point per system, its name beside it,
 * and the Pareto front — the systems no other system beats on both axes —
 * joined by a line. Small code of our own: two plots of a handful of points
 * do not need a charting library.
 *
 * @module
 */

import { escapeHtml } from "./escape.ts";

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
  /** Formats an x tick value. */
  formatX?: (x: number) => string;
}

const WIDTH = 560;
const HEIGHT = 340;
const MARGIN = { left: 56, right: 24, top: 40, bottom: 48 };

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

/** The plot as an `<svg>` element; points with a non-finite coordinate are left out. */
export function scatterPlot(points: readonly PlotPoint[], options: PlotOptions): string {
  const shown = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const formatX = options.formatX ?? ((x: number) => x.toPrecision(2));
  const maxX = Math.max(...shown.map((p) => p.x), 0) || 1;
  const xMax = niceCeiling(maxX * 1.08);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number) => MARGIN.left + (x / xMax) * plotW;
  const sy = (y: number) => MARGIN.top + (1 - Math.min(1, Math.max(0, y))) * plotH;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 ${WIDTH} ${HEIGHT}" ` +
      `width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(options.title)}">`,
    `<title>${escapeHtml(options.title)}</title>`,
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" class="frame"/>`,
  );
  for (let i = 0; i <= 4; i++) {
    const y = i / 4;
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${r(sy(y))}" y2="${
        r(sy(y))
      }" class="grid"/>`,
      `<text x="${MARGIN.left - 8}" y="${r(sy(y) + 4)}" text-anchor="end" class="tick">${
        y.toFixed(2)
      }</text>`,
    );
    const x = (xMax * i) / 4;
    parts.push(
      `<text x="${r(sx(x))}" y="${MARGIN.top + plotH + 18}" text-anchor="middle" class="tick">${
        escapeHtml(formatX(x))
      }</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 8}" text-anchor="middle" class="axis">${
      escapeHtml(options.xLabel)
    }</text>`,
    `<text transform="translate(14 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle" ` +
      `class="axis">${escapeHtml(options.yLabel)}</text>`,
  );
  const front = paretoFront(shown);
  const byLabel = new Map(shown.map((p) => [p.label, p]));
  if (front.length > 1) {
    const path = front.map((label) => {
      const p = byLabel.get(label)!;
      return `${r(sx(p.x))},${r(sy(p.y))}`;
    }).join(" ");
    parts.push(`<polyline points="${path}" class="front"/>`);
  }
  for (const p of shown) {
    const onFront = front.includes(p.label);
    parts.push(
      `<circle cx="${r(sx(p.x))}" cy="${r(sy(p.y))}" r="${onFront ? 6 : 4.5}" class="${
        onFront ? "point on-front" : "point"
      }"><title>${
        escapeHtml(`${p.label}: ${formatX(p.x)}, score ${p.y.toFixed(3)}`)
      }</title></circle>`,
      `<text x="${r(sx(p.x) + 8)}" y="${r(sy(p.y) - 8)}" class="label">${
        escapeHtml(p.label)
      }</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left}" y="14" class="legend">` +
      `line: Pareto front (nothing is both better and cheaper)</text>`,
    "</svg>",
  );
  return parts.join("");
}

/** 1, 2 or 5 times a power of ten, at least `x`. */
function niceCeiling(x: number): number {
  const power = 10 ** Math.floor(Math.log10(x));
  for (const step of [1, 2, 5, 10]) if (step * power >= x) return step * power;
  return 10 * power;
}

function r(n: number): string {
  return n.toFixed(1);
}
