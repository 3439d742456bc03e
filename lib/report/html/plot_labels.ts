/**
 * The labels of a scatter plot's points, as SVG: points at nearly the same
 * spot are labelled together, each label goes where `label_layout.ts` finds
 * it overprints nothing, and a label that fits nowhere becomes a number
 * beside its points, listed in a key under the plot. Should even a number
 * find no room, the placed label nearest it becomes a number too (freeing
 * its space) or, with none near, the crowded group merges with its nearest
 * group, and the plot is laid out again, until every number is drawn (each
 * round numbers or merges at least one group, so the rounds are few). So
 * every point is named, by a label or by a number in the key, and nothing
 * overprints.
 *
 * @module
 */

import { type Html, joinHtml, markup } from "./html.ts";
import {
  type Box,
  clusterPoints,
  type LabelPoint,
  type PlacedLabel,
  placeLabels,
  type Segment,
} from "./label_layout.ts";

/** A point as drawn: its name, its values, and where its marker is. */
export interface DrawnPoint {
  label: string;
  x: number;
  y: number;
  px: number;
  py: number;
  r: number;
}

/** Points labelled together by one number, listed under the plot. */
export interface KeyEntry {
  number: number;
  points: DrawnPoint[];
  /** The number is drawn beside the points (false only if no layout found room for it). */
  drawn: boolean;
}

/** Where the labels may go and what they keep off. */
export interface LabelOptions {
  area: Box;
  fontSize: number;
  /** Points closer than this (pixels) share a label. */
  sameSpot: number;
  /** Lines the labels should rather not cross (the Pareto front). */
  soft: readonly Segment[];
}

/** Most groups labelled by name; a plot with more is labelled by number only. */
const MAX_NAMED = 40;

/** A placed label the nearest of which, within this distance of a numberless group, gives way. */
const GIVE_WAY_DISTANCE = 60;

/** The labels' marks (leader lines and texts) and the key of the points labelled by number. */
export function plotLabels(
  points: readonly DrawnPoint[],
  options: LabelOptions,
): { marks: Html; key: KeyEntry[] } {
  let groups = clusterPoints(points.map((p) => ({ x: p.px, y: p.py })), options.sameSpot)
    .map((g) => g.map((i) => points[i]));
  // Past a few dozen groups names crowd out the plot: every group is keyed by number from the start.
  const numbered = new Set<readonly DrawnPoint[]>(groups.length > MAX_NAMED ? groups : []);
  // Each round draws every number, or numbers more groups, or merges groups: the rounds end.
  for (let round = 0; round <= 2 * points.length + 1; round++) {
    const result = layOut(groups, numbered, options);
    const failed = result.missing.filter((_, n) => result.numbers[n] === null);
    if (failed.length === 0 || round === 2 * points.length + 1) return marksAndKey(groups, result);
    const giving = failed.flatMap((i) => {
      const near = nearestPlaced(enclosing(groups[i], ""), result.first);
      return near === null ? [] : [groups[near]];
    });
    if (giving.length) {
      for (const g of giving) numbered.add(g);
      continue;
    }
    // No label to give way: each stuck group merges with its nearest group (pairs disjoint).
    const merged = new Map<number, number>();
    for (const i of failed) {
      if (merged.has(i)) continue;
      const other = nearestGroup(groups, i, merged);
      if (other !== null) merged.set(i, other).set(other, i);
    }
    if (merged.size === 0) return marksAndKey(groups, result);
    const next: DrawnPoint[][] = [];
    groups.forEach((g, i) => {
      const partner = merged.get(i);
      if (partner === undefined) next.push(g);
      else if (partner > i) {
        const both = [...g, ...groups[partner]]
          .sort((a, b) => points.indexOf(a) - points.indexOf(b));
        numbered.add(both);
        next.push(both);
      }
    });
    groups = next;
  }
  throw new RangeError("unreachable: the label rounds are bounded above");
}

interface Round {
  /** Each group's label, or null when it is labelled by number. */
  first: Array<PlacedLabel | null>;
  /** Groups labelled by number, in key order. */
  missing: number[];
  /** Each numbered group's number, or null where none fits. */
  numbers: Array<PlacedLabel | null>;
}

function layOut(
  groups: ReadonlyArray<readonly DrawnPoint[]>,
  numbered: ReadonlySet<readonly DrawnPoint[]>,
  options: LabelOptions,
): Round {
  const { area, fontSize, soft } = options;
  const others = (labelled: readonly number[]) =>
    groups.flatMap((g, i) => (labelled.includes(i) ? [] : [enclosing(g, "")]));
  const named = groups.map((_, i) => i).filter((i) => !numbered.has(groups[i]));
  const placed = placeLabels(named.map((i) => enclosing(groups[i], names(groups[i]))), {
    area,
    fontSize,
    markers: others(named),
    soft,
  });
  const first: Array<PlacedLabel | null> = groups.map(() => null);
  named.forEach((i, n) => first[i] = placed[n]);
  const missing = groups.map((_, i) => i).filter((i) => first[i] === null)
    .sort((a, b) => groups[a][0].px - groups[b][0].px || groups[a][0].py - groups[b][0].py);
  const numbers = placeLabels(missing.map((i, n) => enclosing(groups[i], String(n + 1))), {
    area,
    fontSize,
    markers: others(missing),
    avoid: first.flatMap((p) => (p ? [p.box] : [])),
    lines: first.flatMap((p) => (p?.leader ? [p.leader] : [])),
    soft,
  });
  return { first, missing, numbers };
}

function marksAndKey(
  groups: ReadonlyArray<readonly DrawnPoint[]>,
  round: Round,
): { marks: Html; key: KeyEntry[] } {
  const marks = [
    ...groups.map((g, i) => round.first[i] && labelMark(round.first[i]!, names(g), "label")),
    ...round.missing.map((_, n) =>
      round.numbers[n] && labelMark(round.numbers[n]!, String(n + 1), "label key-number")
    ),
  ];
  return {
    marks: joinHtml(marks.filter((m) => m !== null)),
    key: round.missing.map((i, n) => ({
      number: n + 1,
      points: [...groups[i]],
      drawn: round.numbers[n] !== null,
    })),
  };
}

function names(group: readonly DrawnPoint[]): string {
  return group.map((p) => p.label).join(", ");
}

/** A group as one marker: the circle around all of its points. */
function enclosing(group: readonly DrawnPoint[], text: string): LabelPoint {
  const x = group.reduce((sum, p) => sum + p.px, 0) / group.length;
  const y = group.reduce((sum, p) => sum + p.py, 0) / group.length;
  return { x, y, r: Math.max(...group.map((p) => Math.hypot(p.px - x, p.py - y) + p.r)), text };
}

/** The group whose placed label lies nearest `point`, within {@link GIVE_WAY_DISTANCE}. */
function nearestPlaced(
  point: LabelPoint,
  placed: ReadonlyArray<PlacedLabel | null>,
): number | null {
  let best: number | null = null;
  let distance = GIVE_WAY_DISTANCE;
  placed.forEach((p, i) => {
    if (!p) return;
    const dx = Math.max(p.box.x0 - point.x, 0, point.x - p.box.x1);
    const dy = Math.max(p.box.y0 - point.y, 0, point.y - p.box.y1);
    const d = Math.hypot(dx, dy);
    if (d < distance) [best, distance] = [i, d];
  });
  return best;
}

/** The group, not in `taken`, whose centre is nearest group `index`'s; null when none is left. */
function nearestGroup(
  groups: ReadonlyArray<readonly DrawnPoint[]>,
  index: number,
  taken: ReadonlyMap<number, number>,
): number | null {
  const from = enclosing(groups[index], "");
  let best: number | null = null;
  let distance = Infinity;
  groups.forEach((g, i) => {
    if (i === index || taken.has(i)) return;
    const to = enclosing(g, "");
    const d = Math.hypot(to.x - from.x, to.y - from.y);
    if (d < distance) [best, distance] = [i, d];
  });
  return best;
}

function labelMark(place: PlacedLabel, text: string, cls: string): Html {
  const leader = place.leader;
  return markup`${
    leader
      ? markup`<line x1="${r(leader.x1)}" y1="${r(leader.y1)}" x2="${r(leader.x2)}" 
        y2="${r(leader.y2)}" class="leader"/>`
      : ""
  }<text x="${r(place.x)}" y="${r(place.baseline)}" class="${cls}">${text}</text>`;
}

function r(n: number): string {
  return n.toFixed(1);
}
