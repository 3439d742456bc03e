/**
 * What a `--mock` run of a config without a mock script measured, printed
 * under its results: with no script, the mock model answers every question
 * by its default policy (an agent searches for the question's text and
 * quotes what it found; `rag` quotes its first passage; the model alone
 * says it does not know), so the run compares retrieval on the documents,
 * not models. A config from `ragbench init` is such a config.
 *
 * @module
 */

/** The note for a `--mock` run of a config with no mock script. */
export const DEFAULT_POLICY_NOTE =
  "Measured with --mock and no mock script: no model answered. Every system followed the mock's " +
  "default policy (the search agent searches for the question and quotes the top result, rag " +
  "quotes its first passage, closed_book says it does not know), so the retrieval columns " +
  "(nDCG, recall) compare the retrievers on your documents, and an answer passes only when the " +
  "text quoted holds it. Run without --mock for the model's own answers.";

/**
 * The note when it applies: a `--mock` run, no mock script, and a system
 * that calls a model (`retrieval_only` systems answer nothing). Printed by
 * `run` only: `ragbench report` re-renders the results without it.
 */
export function mockPolicyNote(
  mock: boolean,
  mockScripts: readonly string[],
  callsModel: boolean,
): string | null {
  return mock && mockScripts.length === 0 && callsModel ? DEFAULT_POLICY_NOTE : null;
}
