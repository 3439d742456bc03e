/**
 * Facts about the path an agent took on a question: how many tool calls and
 * errors, how many searches and distinct queries, how many model steps it
 * took to first see an evidence document, and whether it used every tool the
 * question requires. Any tool result listing `doc_id`s counts as seeing a
 * document here (custom and MCP tools included). A retrieval step (`rag`,
 * `retrieval_only`) counts as a search and as seeing its documents, but not
 * as a tool call.
 *
 * Redundant searches ({@link redundantSearches}): a search is a call of
 * `search` or `corpus_grep` that returned without error, or a system's own
 * retrieval that did not fail. It is redundant when its normalised query (the
 * `query` of search or of the retrieval, the `pattern` of corpus_grep,
 * trimmed, lower-cased, runs of white space made one space; keyed by tool or
 * retriever, and for corpus_grep by its `regex` flag) equals that of an
 * earlier search in the question, or when it listed at least one document and every document
 * it listed was already seen earlier in the question (in any tool result or
 * the system's own retrieval). A search that listed nothing is a miss, not a
 * repeat, and is not redundant unless its query repeats.
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
  const redundancy = redundantSearches(steps);
  return {
    tool_calls: toolCalls,
    tool_errors: toolErrors,
    searches,
    distinct_queries: queries.size,
    steps_to_evidence: stepsToEvidence,
    scored_searches: redundancy.searches,
    redundant_searches: redundancy.redundant,
    required_tools_used: required.length === 0 ? null : required.every((t) => used.has(t)),
  };
}

function normalizeQuery(query: string): string {
  return query.trim().toLowerCase().replace(/\s+/g, " ");
}

/** The tools whose calls count as searches for {@link redundantSearches}. */
export const SEARCH_TOOLS: ReadonlySet<string> = new Set(["search", "corpus_grep"]);

/**
 * Searches (successful search / corpus_grep calls and system retrievals) and
 * how many of them were redundant.
 */
export function redundantSearches(steps: readonly Step[]): { searches: number; redundant: number } {
  const seen = new Set<string>();
  const queries = new Set<string>();
  let searches = 0;
  let redundant = 0;
  const count = (key: string | null, docs: readonly string[]) => {
    searches++;
    const repeated = key !== null && queries.has(key);
    if (key !== null) queries.add(key);
    if (repeated || (docs.length > 0 && docs.every((id) => seen.has(id)))) redundant++;
  };
  for (const step of steps) {
    if (step.type === "retrieval") {
      const docs = step.results.map((r) => r.doc_id);
      if (step.error === null) {
        count(JSON.stringify(["retrieval", step.retriever, normalizeQuery(step.query)]), docs);
      }
      for (const id of docs) seen.add(id);
      continue;
    }
    if (step.type !== "tool" || step.result.error !== null) continue;
    const docs = docIdsOf(step.result.data);
    if (SEARCH_TOOLS.has(step.tool)) count(queryKey(step.tool, step.args), docs);
    for (const id of docs) seen.add(id);
  }
  return { searches, redundant };
}

function queryKey(tool: string, args: unknown): string | null {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return null;
  const record = args as Record<string, unknown>;
  const text = tool === "corpus_grep" ? record.pattern : record.query;
  if (typeof text !== "string") return null;
  const regex = tool === "corpus_grep" ? record.regex === true : false;
  return JSON.stringify([tool, regex, normalizeQuery(text)]);
}
