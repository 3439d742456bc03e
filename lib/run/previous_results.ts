/**
 * The lines an earlier run left, as `--resume` takes them over: each must be
 * a result line (`result_line.ts`, the schema every reader of the file uses;
 * a line scored by retrieval alone, with `passed` and `answer_score` null, is
 * one), and each system × question × repeat counts once, so a file that
 * gained a line twice (by hand, or by two runs that raced before the lock
 * existed) still resumes into unique results (the sorted rewrite at the
 * run's end keeps the first line of each job).
 *
 * The file is streamed and no line is kept: only the keys of the jobs done.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import { eachJsonlValue } from "../util/jsonl_values.ts";
import type { QuestionResult } from "../types.ts";
import { checkResultLine } from "./result_line.ts";
import { jobKey } from "./runner.ts";

/** The jobs an earlier run finished, and how many repeated lines it had. */
export interface PreviousResults {
  /** Keys ({@link jobKey}) of the jobs with a result line. */
  done: Set<string>;
  /** Result lines read (repeated ones included). */
  results: number;
  /** Lines that repeated an earlier line's job (the first is kept). */
  duplicates: number;
}

/**
 * Checks the parsed lines of `path` and records their jobs.
 *
 * @throws {RagbenchError} code "data" naming the first line that is not a
 *   result and its first wrong field.
 */
export function previousResults(lines: Iterable<unknown>, path: string): PreviousResults {
  const tally: PreviousResults = { done: new Set(), results: 0, duplicates: 0 };
  for (const value of lines) addPrevious(tally, value, path);
  return tally;
}

function addPrevious(tally: PreviousResults, value: unknown, path: string): void {
  const checked = checkResultLine(value);
  if (!checked.ok) {
    throw new RagbenchError(
      "data",
      `"${path}": result ${
        tally.results + 1
      } is not a ragbench result line (${checked.why}), so the folder does not hold a ragbench run to resume. Move the file away or choose another folder.`,
    );
  }
  tally.results++;
  const line = value as QuestionResult;
  const key = jobKey(line.system, line.question_id, line.repeat);
  if (tally.done.has(key)) tally.duplicates++;
  else tally.done.add(key);
}

/**
 * Reads the results file at `path` for `--resume`, streamed (a missing file has none). A last
 * line without its newline (a write cut off by a crash) is cut from the file.
 *
 * @throws {RagbenchError} code "io" when the file cannot be read or repaired, "data" naming
 *   the first line that is not JSON or not a result line.
 */
export function readPreviousResults(path: string): PreviousResults {
  const tally: PreviousResults = { done: new Set(), results: 0, duplicates: 0 };
  eachJsonlValue(path, (value) => addPrevious(tally, value, path), { repair: true });
  return tally;
}
