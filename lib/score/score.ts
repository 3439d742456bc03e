/**
 * Scores one trace: runs the question's checks and computes the retrieval
 * and trajectory scores. An errored question keeps its check details but
 * scores 0 and does not pass, so averages never drop it silently; its
 * retrieval metrics are those of whatever it retrieved before failing.
 *
 * @module
 */

import type { Question } from "../data/question_schema.ts";
import type { QuestionResult, Trace } from "../types.ts";
import { runChecks } from "./checks.ts";
import { failureLabel } from "./failure_label.ts";
import { retrievalScores } from "./retrieval.ts";
import { trajectoryScores } from "./trajectory.ts";

/** Options of {@link scoreTrace}. */
export interface ScoreOptions {
  /** Cut-offs of the retrieval metrics (default [1, 5, 10]). */
  retrievalK?: readonly number[];
  /**
   * The system can retrieve: it has a retriever or offers tools (default
   * true). One that cannot (`closed_book`) never gets `retrieval_miss`.
   */
  canRetrieve?: boolean;
}

/**
 * The scored result line of a trace. A question without checks (scored by
 * retrieval alone) gets `answer_score` and `passed` null, so answer means
 * leave it out rather than count it as a pass or a fail.
 */
export function scoreTrace(
  trace: Trace,
  question: Question,
  options: ScoreOptions = {},
): QuestionResult {
  const checks = runChecks(question.checks, trace.answer, trace.steps);
  const passedCount = checks.filter((c) => c.passed).length;
  const errored = trace.error !== null;
  const checked = checks.length > 0;
  const passed = checked ? !errored && passedCount === checks.length : null;
  return {
    system: trace.system,
    model: trace.model,
    question_id: trace.question_id,
    repeat: trace.repeat,
    question: question.question,
    kind: question.kind ?? null,
    tags: question.tags ?? [],
    answer: trace.answer,
    passed,
    answer_score: checked ? (errored ? 0 : passedCount / checks.length) : null,
    failure_label: failureLabel({ ...trace, passed }, question, {
      canRetrieve: options.canRetrieve ?? true,
    }),
    checks,
    error: trace.error,
    flags: trace.flags,
    format_errors: trace.format_errors,
    ...(trace.cited === undefined ? {} : { cited: trace.cited }),
    usage: trace.usage,
    cost_usd: trace.cost_usd,
    latency_ms: trace.latency_ms,
    retrieval: retrievalScores(trace.steps, question.evidence, options.retrievalK),
    trajectory: trajectoryScores(trace.steps, question),
    steps: trace.steps,
  };
}
