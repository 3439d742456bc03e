/**
 * Which retrieval figures count fewer documents than their names say. A
 * ranking cut short by a depth setting (`RetrievalScores.depth`: the
 * retriever's `top_k`) holds fewer documents than a metric at a larger
 * cut-off names — nDCG@10 of a five-document ranking — so every report marks
 * such a figure: the run's console table and `summary.md`, and `compare`.
 *
 * @module
 */

/** The cut-off `k` of a metric named `name@k`; null for one without (`map`, the answer score). */
export function metricCutoff(metric: string): number | null {
  const at = metric.lastIndexOf("@");
  if (at < 0) return null;
  const k = Number(metric.slice(at + 1));
  return Number.isInteger(k) && k > 0 ? k : null;
}

/**
 * Whether `metric` computed on rankings cut to `depth` documents counts fewer
 * documents than it names (`depth` below its cut-off). Null or absent depth:
 * no ranking was cut.
 */
export function isShallow(depth: number | null | undefined, metric: string): boolean {
  const cutoff = metricCutoff(metric);
  return depth != null && cutoff !== null && depth < cutoff;
}

/**
 * The fewest documents a depth-cut ranking of `lines` held; null when no
 * depth cut any (`SystemSummary.retrieval_depth`).
 */
export function fewestRanked(
  lines: Iterable<{ retrieval?: { depth?: number | null } }>,
): number | null {
  let fewest: number | null = null;
  for (const line of lines) {
    const depth = line.retrieval?.depth;
    if (typeof depth === "number" && (fewest === null || depth < fewest)) fewest = depth;
  }
  return fewest;
}
