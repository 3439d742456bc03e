/**
 * Facts about the path an agent took on a question: how many tool calls and
 * errors, how many searches and distinct queries, how many model steps it
 * took to first see an evidence document, and whether it used every tool the
 * question requires. Any tool result listing `doc_id`s counts as seeing a
 * document here (custom and MCP tools included). A retrieval step (`rag`,
 * `retrieval_only`) counts as a search and as seeing its documents, but not
 * as a tool call.
 *
 * @module
 */

import type { Step, TrajectoryScores } from "../types.ts";
import { docIdsOf } from "./retrieval.ts";

/** Trajectory facts of a trace's steps. */
export function trajectoryScores(
  steps: readonly Step[],
  question: { evidence?: readonly { id: string }[]; requires_tools?: readonly string[] },
): TrajectoryScores {
  let toolCalls = 0;
  let toolErrors = 0;
  let searches = 0;
  let modelSteps = 0;
  let stepsToEvidence: number | null = null;
  const queries = new Set<string>();
  const used = new Set<string>();
  const evidence = new Set((question.evidence ?? []).map((e) => e.id));
  for (const step of steps) {
    if (step.type === "model") {
      modelSteps++;
      continue;
    }
    if (step.type === "retrieval") {
      // A system's own retrieval counts as a search, not as a tool call.
      searches++;
      queries.add(normalizeQuery(step.query));
      if (
        stepsToEvidence === null && evidence.size > 0 && step.error === null &&
        step.results.some((r) => evidence.has(r.doc_id))
      ) {
        stepsToEvidence = modelSteps;
      }
      continue;
    }
    toolCalls++;
    used.add(step.tool);
    if (step.result.error) toolErrors++;
    if (step.tool === "search") {
      searches++;
      const query = (step.args as Record<string, unknown> | null)?.query;
      if (typeof query === "string") queries.add(normalizeQuery(query));
    }
    if (
      stepsToEvidence === null && evidence.size > 0 && step.result.error === null &&
      docIdsOf(step.result.data).some((id) => evidence.has(id))
    ) {
      stepsToEvidence = modelSteps;
    }
  }
  const required = question.requires_tools ?? [];
  return {
    tool_calls: toolCalls,
    tool_errors: toolErrors,
    searches,
    distinct_queries: queries.size,
    steps_to_evidence: stepsToEvidence,
    required_tools_used: required.length === 0 ? null : required.every((t) => used.has(t)),
  };
}

function normalizeQuery(query: string): string {
  return query.trim().toLowerCase().replace(/\s+/g, " ");
}
