/**
 * The lines an earlier run left, as `--resume` takes them over: each must be
 * a result line (`result_line.ts`, the schema every reader of the file uses;
 * a line scored by retrieval alone, with `passed` and `answer_score` null, is
 * one), and each system × question × repeat counts once, so a file that
 * gained a line twice (by hand, or by two runs that raced before the lock
 * existed) still resumes into unique results.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import type { QuestionResult } from "../types.ts";
import { checkResultLine } from "./result_line.ts";
import { jobKey } from "./runner.ts";

/** The unique earlier results, and how many repeated lines were dropped. */
export interface PreviousResults {
  results: QuestionResult[];
  duplicates: number;
}

/**
 * Checks and de-duplicates the parsed lines of `path` (the first line of a
 * system × question × repeat wins). The objects kept are the parsed ones, so
 * the lines' places recorded by `readJsonl` still find them for the rewrite.
 *
 * @throws {RagbenchError} code "data" naming the first line that is not a
 *   result and its first wrong field.
 */
export function previousResults(lines: readonly unknown[], path: string): PreviousResults {
  const seen = new Set<string>();
  const results: QuestionResult[] = [];
  let duplicates = 0;
  lines.forEach((value, i) => {
    const checked = checkResultLine(value);
    if (!checked.ok) {
      throw new RagbenchError(
        "data",
        `"${path}": result ${
          i + 1
        } is not a ragbench result line (${checked.why}), so the folder does not hold a ragbench run to resume. Move the file away or choose another folder.`,
      );
    }
    const line = value as QuestionResult;
    const key = jobKey(line.system, line.question_id, line.repeat);
    if (seen.has(key)) {
      duplicates++;
      return;
    }
    seen.add(key);
    results.push(line);
  });
  return { results, duplicates };
}
