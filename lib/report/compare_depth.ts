/**
 * The depth marks of `ragbench compare`: a figure of run A or B computed on
 * rankings its retriever's `top_k` cut below the metric's cut-off is marked
 * `*` as the run's own console table marks it, with the same footnote
 * ({@link depthNotes}) naming the system in its run ("bm25 in B"); a change
 * with a marked side is marked too, and when the two sides were cut to
 * different depths (a shallow figure against a full one) a note says that
 * the change measures the depth as well as the system.
 *
 * @module
 */

import type { MetricDelta } from "../score/run_delta.ts";
import { isShallow } from "../score/shallow_figures.ts";
import { depthNotes } from "./console_table.ts";
import { metricLabel } from "./verdict_text.ts";
import { plural } from "../util/plural.ts";

/** The marks of one change: `*` on a side counted on fewer documents than named, and its change. */
export interface DepthMarks {
  a: "*" | "";
  b: "*" | "";
  change: "*" | "";
}

/**
 * The marks of `d`: empty strings when neither side's rankings were cut below
 * the metric's cut-off, and on a side (or a change) with no figure.
 */
export function depthMarks(d: MetricDelta): DepthMarks {
  const a = d.scoreA !== null && isShallow(d.depthA, d.metric) ? "*" : "";
  const b = d.scoreB !== null && isShallow(d.depthB, d.metric) ? "*" : "";
  return { a, b, change: d.score !== null && (a || b) ? "*" : "" };
}

/**
 * The footnotes of the marked figures among `changes` (unprefixed): first
 * per run the console's note of each system whose rankings were cut below a
 * cut-off shown, then one note per change that sets figures of two depths
 * against each other.
 */
export function compareDepthNotes(changes: readonly MetricDelta[]): string[] {
  const rows = (side: "A" | "B") => {
    const out = new Map<string, { system: string; retrieval_depth: number }>();
    for (const d of changes) {
      const depth = side === "A" ? d.depthA : d.depthB;
      if (depth === null || !isShallow(depth, d.metric)) continue;
      out.set(d.system, { system: d.system, retrieval_depth: depth });
    }
    return [...out.values()];
  };
  // Every row is below a cut-off shown, so no cut-off filters the notes further.
  const perRun = [
    ...depthNotes(rows("A"), Infinity, " in A"),
    ...depthNotes(rows("B"), Infinity, " in B"),
  ];
  // Changes of one system whose sides were cut alike share a note.
  const mixed = new Map<
    string,
    { system: string; a: number | null; b: number | null; metrics: string[] }
  >();
  for (const d of changes) {
    const a = cutTo(d.depthA, d.metric);
    const b = cutTo(d.depthB, d.metric);
    if (a === b || d.score === null) continue;
    const key = JSON.stringify([d.system, a, b]);
    const note = mixed.get(key) ?? { system: d.system, a, b, metrics: [] };
    note.metrics.push(metricLabel(d.metric));
    mixed.set(key, note);
  }
  return [
    ...perRun,
    ...[...mixed.values()].map(({ system, a, b, metrics }) => {
      const one = metrics.length === 1;
      return `${system}: its ${one ? "change" : "changes"} of ${listWords(metrics)} set${
        one ? "s" : ""
      } B's ${one ? "figure" : "figures"}, ${sideWords(b)}, against A's, ${sideWords(a)}, so ${
        one ? "it measures" : "they measure"
      } the depth as much as the system`;
    }),
  ];
}

/** The depth a figure of `metric` was cut to; null when its rankings reached its cut-off. */
function cutTo(depth: number | null, metric: string): number | null {
  return isShallow(depth, metric) ? depth : null;
}

function sideWords(depth: number | null): string {
  return depth === null
    ? "from rankings that reached the cut-off"
    : `from rankings cut to as few as ${plural(depth, "document")}`;
}

function listWords(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
