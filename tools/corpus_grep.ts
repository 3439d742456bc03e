/**
 * `corpus_grep`: search every document's lines for plain words or a regular
 * expression, like grep, and show the matching lines with a little context.
 *
 * Rules a caller may rely on:
 * - Plain words (the default): the pattern is split on white space; a line
 *   matches when every word occurs in it as a substring ("port" finds
 *   "report"), in any order, ignoring case unless `case_sensitive`.
 * - `regex: true`: the pattern is an RE2 regular expression (linear-time
 *   matching, so no pattern can hang the tool); back-references, look-around
 *   and patterns over 200 characters are refused with an `invalid_args` error
 *   that says what to do. `^` and `$` are the start and end of a line. Letter
 *   case is ignored unless `case_sensitive`.
 * - Only the first 2000 characters of a line are searched (both modes); a
 *   shown line is cut to a window of 300 characters around its first match.
 *   `$` is the real end of a line, so it never matches in a line longer than
 *   2000 characters. A shown matching line that was cut says so (output
 *   `[searched the first 2000 of N characters]`, data `cut: true` and
 *   `line_chars`), and when lines in the searched scope were cut the output
 *   ends with a note saying how many, also when nothing matched.
 * - Results are in corpus order (document order, then line order). At most
 *   `max_results` matching lines are shown, and never more than the tool
 *   option `max_results` (default 50) whatever the model asks. The first line
 *   of the output says how many lines matched in all (counted up to 10,000).
 * - Output: `doc_id:line: text` for a match, `doc_id-line- text` for a context
 *   line, `--` between groups that are not adjacent.
 * - `data.results` holds the shown matching lines `{doc_id, line, text}`
 *   (plus `cut`, `line_chars` for a cut line). An output over the run's
 *   `tools.max_output_chars` is cut after a matching line, never inside one
 *   (the notes at the end are then left out), and the lines it left out move
 *   to `data.not_shown` (`tools/output_cut.ts`).
 *
 * @module
 */

import { z } from "zod";
import { defineTool } from "./define_tool.ts";
import { SCAN_CHARS } from "../lib/grep/line_store.ts";

/**
 * Time a regex search may spend matching before it stops and reports the lines it did not
 * search (see `deadline` in line_scan.ts): the engine is linear, but slow on large counted
 * repetitions over long lines that match, and the worker cannot be stopped mid-scan.
 */
export const REGEX_TIME_BUDGET_MS = 5000;

/**
 * The scanning engine, loaded on first use: the run's main thread, which only describes the tool
 * to models and checks its options, never loads it (see "Start-up" in docs/architecture.md).
 */
let loading: Promise<typeof import("./corpus_grep_engine.ts")> | undefined;
const engine = () => loading ??= import("./corpus_grep_engine.ts");

const parameters = z.strictObject({
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

const options = z.strictObject({
  max_results: z.int().min(1).default(50).describe(
    "Hard cap on matching lines per call, whatever the model asks for.",
  ),
});

/** Arguments of a `corpus_grep` call, after validation. */
export type CorpusGrepArgs = z.output<typeof parameters>;
/** Options of the tool in a config, after validation. */
export type CorpusGrepOptions = z.output<typeof options>;

/** The built-in `corpus_grep` tool: grep over the corpus's document lines. */
export const corpusGrep = defineTool({
  name: "corpus_grep",
  description: "Search every document's lines for words or a pattern, like grep. Shows " +
    "`doc_id:line: text` for each matching line with a little context (`doc_id-line- text`). " +
    "By default every word must appear on the same line, ignoring case; with regex: true the " +
    "pattern is a regular expression. Good for identifiers, names and exact figures.",
  parameters,
  options,
  sideEffects: "none",
  load: engine,
  async prepare(corpus) {
    // The UTF-8 form every scan reads (and the kernel it compiles): built here, it is not charged
    // to the first call's latency and timeout.
    (await engine()).prepareGrep(corpus);
  },
  async run(args, ctx) {
    return await (await engine()).runGrep(args, ctx);
  },
});
