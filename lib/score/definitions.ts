/**
 * The scorer's identity, recorded in each run's `run.json`: a version
 * number and one sentence per metric. Two runs are comparable, and a run may
 * be resumed, only when both are equal. Bump {@link SCORER_VERSION} and edit
 * the sentence in the same commit as any change to how a check or metric is
 * computed.
 *
 * @module
 */

/** Version of the scoring rules; bump on any change to a check or metric. */
export const SCORER_VERSION = 3;

/** One line per metric: what it measures, over what, and how ties and gaps are handled. */
export const METRIC_DEFINITIONS: Readonly<Record<string, string>> = Object.freeze({
  answer_score:
    "share of a question's checks that passed; 0 when the question errored; a system's is the mean over its lines",
  accuracy: "share of lines whose every check passed and that did not error",
  checks:
    "numeric_equals (tolerance absolute), contains/icontains/not_contains/equals, iregex (RE2 syntax, case-insensitive, linear time), min/max_tool_calls and tool_used over every tool step, failed calls included; a missing or blank answer fails every answer-text check",
  retrieval_ranking:
    "the doc ids of each search/corpus_grep/read_document result the model was shown (an output cut to tools.max_output_chars counts only the results it kept), merged with Reciprocal Rank Fusion (k = 60); ties keep first-seen order",
  retrieval_depth:
    "the fewest documents in a ranking that a system's own retrieval depth (top_k) cut short; metrics at larger cut-offs are computed on fewer documents than they name and are marked",
  evidence_recall: "share of a question's evidence documents anywhere in the merged ranking",
  mrr: "1 / rank of the first evidence document in the merged ranking, 0 when none",
  latency_percentiles: "linear interpolation between the two nearest ranks (NumPy's default)",
  rates: "every line counts, errored ones included; a rate with no denominator is empty, not 0",
});
