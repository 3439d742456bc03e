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

import { defineTool } from "./define_tool.ts";
import { options, parameters } from "./corpus_grep_args.ts";

/**
 * The scanning engine, loaded on first use: the run's main thread, which only describes the tool
 * to models and checks its options, never loads it (see "Start-up" in docs/architecture.md).
 */
let loading: Promise<typeof import("./corpus_grep_engine.ts")> | undefined;
const engine = () => loading ??= import("./corpus_grep_engine.ts");

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
    // The line index over the UTF-8 form every scan reads: built here, it is not charged to the
    // first call's latency and timeout.
    await (await engine()).prepareGrep(corpus);
  },
  async run(args, ctx) {
    return await (await engine()).runGrep(args, ctx);
  },
});
