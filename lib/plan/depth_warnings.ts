/**
 * The warning `validate` (and `run`) print when a system's own retrieval
 * ranks fewer results (passages, or documents over a whole-document BM25)
 * than a cut-off of the retrieval metrics: its nDCG@10
 * or R@100 would then be computed on fewer documents than the metric names
 * (the console marks such figures with `*`, and `metrics_summary.csv` gives
 * the depth in `retrieval_depth`).
 *
 * @module
 */

import type { Config } from "../config/types.ts";
import { retrievalDepthOf, type SystemDef } from "../../systems/system.ts";
import { plural } from "../util/plural.ts";

/** One warning per distinct depth below a cut-off, naming the systems it concerns. */
export function depthWarnings(
  config: Pick<Config, "systems" | "evaluation">,
  systems: ReadonlyMap<string, SystemDef>,
): string[] {
  const cutoffs = config.evaluation.retrieval_k;
  const shallow = new Map<number, string[]>();
  for (const system of config.systems) {
    const def = systems.get(system.type);
    const depth = def
      ? retrievalDepthOf(def, system.retriever?.config.top_k ?? null, cutoffs)
      : null;
    // A depth in documents is deepened until it holds them; only passages can fall short.
    if (depth === null || depth.unit !== "passages") continue;
    if (!cutoffs.some((k) => k > depth.count)) continue;
    shallow.set(depth.count, [...(shallow.get(depth.count) ?? []), system.name]);
  }
  return [...shallow].map(([count, names]) => {
    const above = cutoffs.filter((k) => k > count);
    const whose = names.length === 1 ? `of ${names[0]} is` : `of ${names.join(", ")} is`;
    return `top_k ${count} ${whose} below the cut-off${above.length === 1 ? "" : "s"} ` +
      `${listed(above)} of evaluation.retrieval_k: ${
        names.length === 1 ? "its" : "their"
      } metrics at ${above.length === 1 ? "that cut-off" : "those cut-offs"} rank at most ${
        plural(count, "result")
      }, and the reports mark them (* on the console, ` +
      `retrieval_depth in metrics_summary.csv). Set top_k to at least ${
        Math.max(...above)
      } (retrieval_only ranks that deep when top_k is not set), or list smaller cut-offs in ` +
      `evaluation.retrieval_k`;
  });
}

function listed(ks: readonly number[]): string {
  return ks.length === 1 ? String(ks[0]) : `${ks.slice(0, -1).join(", ")} and ${ks.at(-1)}`;
}
