/**
 * What a run keeps in memory of a result once its line is in the results
 * file. The run holds every result until it ends (for the summaries, the
 * report and the sorted rewrite of the file), so the bulk of each one is
 * dropped as soon as it is written: a tool step's `data` (search hits, grep
 * lines: the scorer has read them already, and nothing after it does), and
 * its `output` beyond what the report shows of it (`cut(output,
 * MAX_STEP_CHARS)` reads the same from the first `MAX_STEP_CHARS + 1`
 * characters). Everything the summaries read stays.
 *
 * The line on disk keeps everything: the final rewrite writes each line as
 * it was appended or read back (`jsonl.ts` keeps its bytes or its place in
 * the file), never from the object, and `ragbench report RUN_DIR` rebuilds
 * the same files from the file alone (a test holds the two to each other).
 * Only a result whose line `jsonl.ts` wrote or read may be trimmed: one
 * appended by this run, or read back for `--resume`.
 *
 * @module
 */

import type { QuestionResult } from "../types.ts";
import { MAX_STEP_CHARS } from "./html/question_data.ts";

/** Drops, in place, what no summary or report reads of a written result. */
export function trimWrittenResult(result: QuestionResult): void {
  for (const step of result.steps) {
    if (step.type !== "tool") continue;
    step.result.data = undefined;
    if (step.result.output.length > MAX_STEP_CHARS + 1) {
      step.result.output = copied(step.result.output.slice(0, MAX_STEP_CHARS + 1));
    }
  }
}

/**
 * A string of its own. V8 keeps a slice of a long string as a view into the
 * whole, so the slice alone would keep every output alive (measured: the
 * held heap did not shrink until the slices were copied).
 */
function copied(text: string): string {
  return JSON.parse(JSON.stringify(text));
}
