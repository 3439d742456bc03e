/**
 * Scores one trace: runs the question's checks and computes the retrieval
 * and trajectory scores. An errored question keeps its check details but
 * scores 0 and does not pass, so averages never drop it silently.
 *
 * @module
 */

import type { Question } from "../data/question_schema.ts";
import type { QuestionResult, Trace } from "../types.ts";
import { runChecks } from "./checks.ts";
import { retrievalScores } from "./retrieval.ts";
import { trajectoryScores } from "./trajectory.ts";

/** The scored result line of a trace. */
export function scoreTrace(trace: Trace, question: Question): QuestionResult {
  const checks = runChecks(question.checks, trace.answer, trace.steps);
  const passedCount = checks.filter((c) => c.passed).length;
  const errored = trace.error !== null;
  return {
    system: trace.system,
    question_id: trace.question_id,
    repeat: trace.repeat,
    question: question.question,
    kind: question.kind ?? null,
    tags: question.tags ?? [],
    answer: trace.answer,
    passed: !errored && passedCount === checks.length,
    answer_score: errored ? 0 : passedCount / checks.length,
    checks,
    error: trace.error,
    flags: trace.flags,
    usage: trace.usage,
    cost_usd: trace.cost_usd,
    latency_ms: trace.latency_ms,
    retrieval: retrievalScores(trace.steps, question.evidence),
    trajectory: trajectoryScores(trace.steps, question),
    steps: trace.steps,
  };
}
