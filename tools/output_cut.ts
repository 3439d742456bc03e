/**
 * How a tool's output is cut to the run's `tools.max_output_chars`, and
 * which of its results the model was then shown.
 *
 * A result that says where each of its `data.results` ends in the output
 * (`result_ends`: `search`, one per passage; `corpus_grep`, one per matching
 * line) is cut after the last result that fits, never inside one; the
 * results left out move from `data.results` to `data.not_shown`, so
 * everything downstream that reads `data.results` (the retrieval metrics,
 * the failure labels, steps to evidence, the mock model's evidence test)
 * counts only what the model read. When even the first result does not fit,
 * the output is cut inside it (the model still reads its start and its
 * document id, so it stays in `data.results`). Any other output is cut at
 * the limit, as a plain text. A note saying what was cut follows the kept
 * text; it is not counted in the limit.
 *
 * @module
 */

import type { JsonValue } from "../lib/types.ts";
import { type RawToolResult, resultEnds } from "./invoke.ts";

/** The output the model reads, the data kept for scoring, and whether it was cut. */
export interface CutOutput {
  output: string;
  data?: JsonValue;
  truncated: boolean;
}

/** Cuts `raw`'s output to `limit` characters (see the module documentation). */
export function cutOutput(raw: RawToolResult, limit: number): CutOutput {
  const { output, data } = raw;
  const kept = data === undefined ? {} : { data };
  if (output.length <= limit) return { output, ...kept, truncated: false };
  // Checked again here: a custom tool's process may send anything.
  const ends = resultEnds(raw.result_ends, data, output.length);
  const results = resultsOf(data);
  if (ends === undefined || results === undefined) {
    return {
      output: `${output.slice(0, limit)}\n[output cut at ${limit} characters]`,
      ...kept,
      truncated: true,
    };
  }
  let shown = 0;
  while (shown < ends.length && ends[shown] <= limit) shown++;
  const total = results.length;
  let text: string;
  if (shown === 0) {
    shown = Math.min(1, total);
    text = `${output.slice(0, limit)}\n[output cut at ${limit} characters: the first result is ` +
      `longer than the limit${total > 1 ? `; ${total - 1} more not shown` : ""}]`;
  } else {
    text = `${output.slice(0, ends[shown - 1]).trimEnd()}\n\n[output cut at ${limit} ` +
      `characters: ${shown} of ${total} results shown]`;
  }
  return {
    output: text,
    data: {
      ...(data as Record<string, JsonValue>),
      results: results.slice(0, shown),
      not_shown: results.slice(shown),
    },
    truncated: true,
  };
}

function resultsOf(data: JsonValue | undefined): JsonValue[] | undefined {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  return Array.isArray(data.results) ? data.results : undefined;
}
