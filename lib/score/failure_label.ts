/**
 * Why a question failed: every result line that did not pass gets exactly
 * one label (`FAILURE_LABELS`, in lib/types.ts), the first of this list whose
 * condition holds (a passed line gets null, and so does a question without
 * checks, scored by retrieval alone):
 *
 * 1. `model_error` — the model API failed (the line's error is of kind `model`).
 * 2. `tool_error` — some tool the question `requires_tools` was called and
 *    every one of its calls returned an error.
 * 3. `budget_exhausted` — a cost, token or tool-call cap stopped the agent
 *    (`flags.budget_exhausted`), or the question ran past
 *    `evaluation.question_timeout_s` (error of kind `timeout`).
 * 4. `format_error` — the agent never produced a valid final answer in its
 *    reply format (`flags.format_error`; react_json). It ranks above the
 *    retrieval labels: with no valid answer, what was retrieved is not why
 *    the question failed.
 * 5. `retrieval_miss` — the question has `evidence`, the system can retrieve
 *    (it has a retriever or offers tools), and no evidence document was ever
 *    returned by a tool (search, grep, read or any tool listing `doc_id`s) or
 *    by the system's own retrieval. A system that cannot retrieve
 *    (`closed_book`) never misses a retrieval: its wrong answers are `other`.
 * 6. `generation_miss` — an evidence document was seen, and the answer is
 *    still wrong.
 * 7. `other` — anything else: an internal error (a ragbench bug), the
 *    system's own failure (error of kind `system`: a framework threw), a
 *    wrong answer to a question without evidence (an unanswerable item
 *    answered from memory, a tool question computed wrongly), or a wrong
 *    answer of a system that cannot retrieve.
 *
 * @module
 */

import type { FailureLabel, Step, StepError, TraceFlags } from "../types.ts";
import { docIdsOf } from "./retrieval.ts";

/** What the label is decided from: the scored line's outcome and the question's declarations. */
export interface FailureInput {
  /** null for a question without checks (scored by retrieval alone): no label. */
  passed: boolean | null;
  error: StepError | null;
  flags: TraceFlags;
  steps: readonly Step[];
}

/** The failure label of a line, or null when it passed. */
export function failureLabel(
  line: FailureInput,
  question: { evidence?: readonly { id: string }[]; requires_tools?: readonly string[] },
  system: { canRetrieve: boolean } = { canRetrieve: true },
): FailureLabel | null {
  if (line.passed !== false) return null;
  if (line.error?.kind === "model") return "model_error";
  if (line.error?.kind === "internal" || line.error?.kind === "system") return "other";
  if (requiredToolAlwaysFailed(line.steps, question.requires_tools ?? [])) return "tool_error";
  if (line.flags.budget_exhausted || line.error?.kind === "timeout") return "budget_exhausted";
  if (line.flags.format_error) return "format_error";
  const evidence = new Set((question.evidence ?? []).map((e) => e.id));
  if (evidence.size > 0 && system.canRetrieve) {
    return evidenceSeen(line.steps, evidence) ? "generation_miss" : "retrieval_miss";
  }
  return "other";
}

/** Some required tool was called, and every call of it returned an error. */
function requiredToolAlwaysFailed(steps: readonly Step[], required: readonly string[]): boolean {
  for (const tool of required) {
    let calls = 0;
    let failed = 0;
    for (const step of steps) {
      if (step.type !== "tool" || step.tool !== tool) continue;
      calls++;
      if (step.result.error) failed++;
    }
    if (calls > 0 && failed === calls) return true;
  }
  return false;
}

/** Some successful tool result or retrieval listed an evidence document. */
export function evidenceSeen(steps: readonly Step[], evidence: ReadonlySet<string>): boolean {
  for (const step of steps) {
    if (step.type === "tool") {
      if (step.result.error === null && docIdsOf(step.result.data).some((id) => evidence.has(id))) {
        return true;
      }
    } else if (step.type === "retrieval") {
      if (step.error === null && step.results.some((r) => evidence.has(r.doc_id))) return true;
    }
  }
  return false;
}
