/**
 * Reading a finished run's steps back, for CLI tests.
 *
 * @module
 */

import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";

/** The first tool step of the first result line in run directory `dir`. */
export async function firstToolStep(dir: string): Promise<ToolStep> {
  const [line] = await readJsonl(join(dir, "per_question_results.jsonl")) as QuestionResult[];
  const step = line.steps.find((s): s is ToolStep => s.type === "tool");
  if (!step) throw new Error(`the first line in ${dir} has no tool step`);
  return step;
}
