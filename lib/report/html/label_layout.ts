/**
 * Where a scatter plot's point labels go so that none overprints another
 * label, a point, or anything else the plot draws: each label tries sixteen
 * directions around its point at growing distances (beyond the first, a
 * thin leader line joins label and point), and takes the free place that
 * crosses the fewest soft obstacles (such as the Pareto front's line), then
 * is nearest. Labels of crowded points choose first; when some label finds
 * no place, the layout is tried again with those labels choosing first, and
 * the one that places more wins. A label with no free place is left
 * unplaced, for the caller to key by number instead. Text sizes
 * come from {@link textWidth}, which errs wide, so the drawn text stays
 * inside the box placed for it. Deterministic: the same points give the
 * same places.
 *
 * @module
 */

import { textWidth } from "./text_width.ts";

/** An axis-aligned rectangle in pixels (`x0 < x1`, `y0 < y1`; y grows downwards). */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A line segment in pixels. */
export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** A marker to label: its centre and radius, and the label's text. */
export interface LabelPoint {
  x: number;
  y: number;
  r: number;
  text: string;
}

/** A label's place. */
export interface PlacedLabel {
  /** The box the text is drawn in (what nothing else may overlap). */
  box: Box;
  /** Where the text starts (`text-anchor="start"`) and its baseline. */
  x: number;
  baseline: number;
  /** A line from the marker to the label, when the label sits away from its marker. */
  leader: Segment | null;
}

/** What the labels must stay inside of and away from. */
export interface LayoutOptions {
  /** Every label stays inside this box. */
  area: Box;
  fontSize: number;
  /** Markers the labels must not touch besides the labelled points' own (e.g. other plots' points). */
  markers?: readonly LabelPoint[];
  /** Boxes no label may overlap (another text, a legend). */
  avoid?: readonly Box[];
  /** Lines no label may cross (leader lines drawn already). */
  lines?: readonly Segment[];
  /** Lines a label should rather not cross: one crossing costs more than any place farther out. */
  soft?: readonly Segment[];
}

/** Space kept between a label and anything else, in pixels. */
const GAP = 2;
/** Distances from a marker's edge to its label tried, nearest first (pixels). */
const RINGS = [3, 10, 20, 32, 48, 70];
/**
 * Directions tried at each distance, in order of preference: right, then
 * turning up and down by 22.5° steps, ending at left and straight up or down.
 */
const DIRECTIONS: ReadonlyArray<readonly [number, number]> = [
  0,
  -1,
  1,
  -2,
  2,
  8,
  -7,
  7,
  -6,
  6,
  -3,
  3,
  -5,
  5,
  -4,
  4,
]
  .map((step) => [Math.cos((step * Math.PI) / 8), Math.sin((step * Math.PI) / 8)] as const);
/** What crossing one soft line costs: more than any place farther out. */
const CROSSING_COST = RINGS.length * 20 + DIRECTIONS.length;
/** A text's box, above and below its baseline, in ems (DejaVu Sans' ascent and descent, rounded up). */
const ASCENT = 0.93;
const DESCENT = 0.24;
/** Radius within which the labels of other points count as crowding. */
const CROWD_RADIUS = 80;

/**
 * Places the labels of `points` (each point's own marker is avoided by
 * every label); returns one place per point, or null for a label that fits
 * nowhere.
 */
export function placeLabels(
  points: readonly LabelPoint[],
  options: LayoutOptions,
): Array<PlacedLabel | null> {
  const first = layout(points, options, crowdedFirst(points));
  const failed = first.places.flatMap((p, i) => (p ? [] : [i]));
  if (failed.length === 0) return first.places;
  // Once more with the labels that found no place choosing first; the better layout wins.
  const order = [...failed, ...crowdedFirst(points).filter((i) => !failed.includes(i))];
  const second = layout(points, options, order);
  const missing = (l: Layout) => l.places.filter((p) => p === null).length;
  return missing(second) < missing(first) ||
      (missing(second) === missing(first) && second.cost < first.cost)
    ? second.places
    : first.places;
}

interface Layout {
  places: Array<PlacedLabel | null>;
  cost: number;
}

/** Places the labels greedily in `order`. */
function layout(points: readonly LabelPoint[], options: LayoutOptions, order: number[]): Layout {
  const own = points.map(markerBox);
  const taken: Box[] = [
    ...own,
    ...(options.markers ?? []).map(markerBox),
    ...(options.avoid ?? []),
  ];
  const leaders: Segment[] = [...(options.lines ?? [])];
  const places: Array<PlacedLabel | null> = points.map(() => null);
  let cost = 0;
  for (const index of order) {
    const best = bestPlace(points[index], options, { taken, leaders, own: own[index] });
    if (!best) continue;
    places[index] = best.place;
    cost += best.cost;
    taken.push(best.place.box);
    if (best.place.leader) leaders.push(best.place.leader);
  }
  return { places, cost };
}

/**
 * Groups points whose markers nearly coincide: each point joins the first
 * group whose first point is closer than `distance`, else starts a group
 * (so a group spans at most twice `distance`, however many points chain
 * across it). Groups list point indices in order, in the order of their
 * first points.
 */
export function clusterPoints(
  points: ReadonlyArray<{ x: number; y: number }>,
  distance: number,
): number[][] {
  const groups: number[][] = [];
  points.forEach((p, i) => {
    const near = groups.find((g) =>
      Math.hypot(points[g[0]].x - p.x, points[g[0]].y - p.y) < distance
    );
    if (near) near.push(i);
    else groups.push([i]);
  });
  return groups;
}

/** Whether two boxes overlap (touching edges do not). */
export function overlaps(a: Box, b: Box): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/** What is drawn already: boxes, leader lines, and the labelled point's own marker. */
interface Drawn {
  taken: readonly Box[];
  leaders: readonly Segment[];
  own: Box;
}

function bestPlace(
  point: LabelPoint,
  options: LayoutOptions,
  drawn: Drawn,
): { place: PlacedLabel; cost: number } | null {
  const { taken, leaders, own } = drawn;
  const { fontSize, area } = options;
  const width = textWidth(point.text, fontSize);
  const above = ASCENT * fontSize;
  const height = (ASCENT + DESCENT) * fontSize;
  let best: { place: PlacedLabel; cost: number } | null = null;
  RINGS.forEach((ring, r) => {
    DIRECTIONS.forEach(([dx, dy], d) => {
      const reach = point.r + ring;
      const ax = point.x + dx * reach;
      const ay = point.y + dy * reach;
      // The box's side or corner nearest the point faces it.
      const x0 = dx > 0.3 ? ax : dx < -0.3 ? ax - width : ax - width / 2;
      const y0 = dy > 0.3 ? ay : dy < -0.3 ? ay - height : ay - height / 2;
      const box = { x0, y0, x1: x0 + width, y1: y0 + height };
      if (!inside(box, area)) return;
      const padded = grow(box, GAP);
      if (taken.some((t) => overlaps(padded, t))) return;
      if (leaders.some((l) => crosses(l, padded))) return;
      const leader = r === 0 ? null : leaderLine(point, box);
      if (leader && taken.some((t) => t !== own && crosses(leader, t))) return;
      if (leader && leaders.some((l) => intersect(l, leader))) return;
      const crossings = (options.soft ?? []).filter((s) => crosses(s, box)).length;
      const cost = r * 20 + d + crossings * CROSSING_COST;
      if (best === null || cost < best.cost) {
        best = { place: { box, x: x0, baseline: y0 + above, leader }, cost };
      }
    });
  });
  return best;
}

/** Indices of `points`, those with the most other points near them first. */
function crowdedFirst(points: readonly LabelPoint[]): number[] {
  const crowd = points.map((p) =>
    points.filter((q) => q !== p && Math.hypot(p.x - q.x, p.y - q.y) < CROWD_RADIUS).length
  );
  return points.map((_, i) => i).sort((a, b) =>
    crowd[b] - crowd[a] || points[a].y - points[b].y || points[a].x - points[b].x || a - b
  );
}

function markerBox(p: LabelPoint): Box {
  return { x0: p.x - p.r, y0: p.y - p.r, x1: p.x + p.r, y1: p.y + p.r };
}

function grow(b: Box, by: number): Box {
  return { x0: b.x0 - by, y0: b.y0 - by, x1: b.x1 + by, y1: b.y1 + by };
}

function inside(b: Box, area: Box): boolean {
  return b.x0 >= area.x0 && b.y0 >= area.y0 && b.x1 <= area.x1 && b.y1 <= area.y1;
}

/** From the marker's edge towards the nearest point of the label's box. */
function leaderLine(p: LabelPoint, box: Box): Segment {
  const tx = Math.min(Math.max(p.x, box.x0), box.x1);
  const ty = Math.min(Math.max(p.y, box.y0), box.y1);
  const length = Math.hypot(tx - p.x, ty - p.y) || 1;
  return {
    x1: p.x + ((tx - p.x) / length) * (p.r + 1),
    y1: p.y + ((ty - p.y) / length) * (p.r + 1),
    x2: tx,
    y2: ty,
  };
}

/** Whether two segments cross (touching ends count). */
function intersect(a: Segment, b: Segment): boolean {
  const side = (s: Segment, x: number, y: number) =>
    Math.sign((s.x2 - s.x1) * (y - s.y1) - (s.y2 - s.y1) * (x - s.x1));
  return side(a, b.x1, b.y1) * side(a, b.x2, b.y2) <= 0 &&
    side(b, a.x1, a.y1) * side(b, a.x2, a.y2) <= 0 &&
    Math.max(a.x1, a.x2) >= Math.min(b.x1, b.x2) && Math.max(b.x1, b.x2) >= Math.min(a.x1, a.x2) &&
    Math.max(a.y1, a.y2) >= Math.min(b.y1, b.y2) && Math.max(b.y1, b.y2) >= Math.min(a.y1, a.y2);
}

/** Whether segment `s` meets box `b` (Liang–Barsky clipping). */
function crosses(s: Segment, b: Box): boolean {
  const dx = s.x2 - s.x1;
  const dy = s.y2 - s.y1;
  let t0 = 0;
  let t1 = 1;
  const edges: Array<[number, number]> = [
    [-dx, s.x1 - b.x0],
    [dx, b.x1 - s.x1],
    [-dy, s.y1 - b.y0],
    [dy, b.y1 - s.y1],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}
