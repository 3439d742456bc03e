/**
 * The arguments and options of `corpus_grep` (the rules are in
 * `corpus_grep.ts`): what both the tool's declaration and its engine
 * (`corpus_grep_engine.ts`) read, kept apart so that neither imports the
 * other.
 *
 * @module
 */

import { z } from "zod";
import { SCAN_CHARS } from "../lib/grep/line_store.ts";

/**
 * Time a regex search may spend matching before it stops and reports the lines it did not
 * search (see `deadline` in lib/grep/regex_scan.ts): the engine is linear, but slow on large counted
 * repetitions over long lines that match, and the worker cannot be stopped mid-scan.
 */
export const REGEX_TIME_BUDGET_MS = 5000;

/** What a model may send. */
export const parameters = z.strictObject({
  pattern: z.string().min(1).max(1000).describe(
    "What to look for. By default plain words: a line matches when it contains every word " +
      '(as a substring, so "port" also finds "report"). With regex: true, an RE2 regular ' +
      "expression (at most 200 characters, no look-around or back-references).",
  ),
  regex: z.boolean().default(false).describe(
    "Treat pattern as a regular expression (RE2 syntax; ^ and $ match at line start and end; " +
      `only the first ${SCAN_CHARS} characters of a line are searched).`,
  ),
  case_sensitive: z.boolean().default(false).describe(
    "Match letter case exactly (default: ignore case).",
  ),
  doc_id: z.string().min(1).max(1000).optional().describe(
    "Search only this document (an id from list_documents or search results).",
  ),
  context_lines: z.int().min(0).max(5).default(1).describe(
    "Lines of context shown before and after each matching line (0-5).",
  ),
  max_results: z.int().min(1).default(20).describe(
    "Most matching lines to return (the run may cap this lower).",
  ),
});

/** What a config may set. */
export const options = z.strictObject({
  max_results: z.int().min(1).default(50).describe(
    "Hard cap on matching lines per call, whatever the model asks for.",
  ),
});

/** Arguments of a `corpus_grep` call, after validation. */
export type CorpusGrepArgs = z.output<typeof parameters>;
/** Options of the tool in a config, after validation. */
export type CorpusGrepOptions = z.output<typeof options>;
