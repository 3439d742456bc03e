/**
 * The lines an earlier run left, as `--resume` takes them over: each must be
 * one of ours (an object with `system`, `question_id` and `repeat`), and each
 * system × question × repeat counts once, so a file that gained a line twice
 * (by hand, or by two runs that raced before the lock existed) still
 * resumes into unique results.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import type { QuestionResult } from "../types.ts";
import { jobKey } from "./runner.ts";

/** The unique earlier results, and how many repeated lines were dropped. */
export interface PreviousResults {
  results: QuestionResult[];
  duplicates: number;
}

function isResultLine(value: unknown): value is QuestionResult {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const line = value as Record<string, unknown>;
  return typeof line.system === "string" && typeof line.question_id === "string" &&
    Number.isSafeInteger(line.repeat) && (line.repeat as number) >= 1 &&
    typeof line.passed === "boolean" && typeof line.answer_score === "number";
}

/**
 * Checks and de-duplicates the parsed lines of `path` (the first line of a
 * system × question × repeat wins).
 *
 * @throws {RagbenchError} code "data" naming the first line that is not a result.
 */
export function previousResults(lines: readonly unknown[], path: string): PreviousResults {
  const seen = new Set<string>();
  const results: QuestionResult[] = [];
  let duplicates = 0;
  lines.forEach((line, i) => {
    if (!isResultLine(line)) {
      throw new RagbenchError(
        "data",
        `"${path}": result ${
          i + 1
        } is not a ragbench result line (it needs system, question_id, repeat, passed and answer_score), so the folder does not hold a ragbench run to resume. Move the file away or choose another folder.`,
      );
    }
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
