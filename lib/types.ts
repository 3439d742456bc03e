/**
 * Core data types shared by every layer: corpus, questions, tool results,
 * trace steps and scored results. Types that have a zod schema (config,
 * questions, checks) are inferred from it next to their owner; this file holds
 * the plain runtime shapes that flow between layers.
 *
 * @module
 */

/** A JSON value, as written to JSONL and passed across worker boundaries. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** One prose document of the corpus. `id` is stable across runs. */
export interface Document {
  id: string;
  title: string;
  text: string;
  /** Path of the file it came from, relative to the corpus root. */
  source: string;
  /**
   * For a document of pages (a PDF): the offset in `text` where each page
   * starts, in page order (page 1 at `pages[0]`, which is 0). Passages never
   * span two pages and carry their page number.
   */
  pages?: number[];
}

/** A cell of a corpus table: CSV cells are strings, JSON cells keep their type. */
export type Cell = string | number | boolean | null;

/** One CSV or JSON table of the corpus, kept as rows rather than prose. */
export interface Table {
  /** Path of the file it came from, relative to the corpus root. */
  source: string;
  title: string;
  columns: string[];
  rows: Record<string, Cell>[];
}

/** Everything a run searches and reads: plain data, safe to post to a worker. */
export interface Corpus {
  /** Documents in a stable order (by id). */
  documents: Document[];
  tables: Table[];
}

/** Tool side effects, from least to most privileged. */
export type SideEffects = "none" | "filesystem" | "network";

/** The fixed set of tool-error kinds. Extend deliberately, not ad hoc. */
export const TOOL_ERROR_KINDS = [
  "invalid_args",
  "unknown_tool",
  "permission",
  "timeout",
  "output_limit",
  "not_found",
  "execution",
  "unavailable",
] as const;

/** One of {@link TOOL_ERROR_KINDS}. */
export type ToolErrorKind = typeof TOOL_ERROR_KINDS[number];

/**
 * A failed tool call. `message` is what the model reads; `detail` is kept for
 * the log (JSONL) only and may name paths or hosts the model must not see.
 */
export interface ToolError {
  kind: ToolErrorKind;
  message: string;
  detail?: string;
}

/** The outcome of one tool call. Produced for every call, failed or not. */
export interface ToolResult {
  /** Text the model reads (already cut to `max_output_chars`). */
  output: string;
  /** Structured result for scoring (e.g. the doc ids a search returned). */
  data?: JsonValue;
  error: ToolError | null;
  /** The output was cut to the run's `max_output_chars`. */
  truncated: boolean;
  /**
   * US dollars; null when unknown (a `search` whose embedding model has no
   * known price), never 0 for that.
   */
  cost_usd: number | null;
  latency_ms: number;
}

/** Token counts of one model call or a whole question. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** A tool call as the model sent it; `arguments` is the raw JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Why a question could not be completed (recorded, never thrown past the
 * runner): the model API failed, the question timed out, a system's own
 * retrieval failed (an embedding endpoint down, say), the system's own code
 * failed (`system`: an agent framework threw, gave no answer or its process
 * died; `SystemFailedError` in `systems/system.ts`), or a bug. A failed call of an HTTP model carries its retries (`retries`, `http_statuses`,
 * `backoff_ms`, as on {@link ModelStep}).
 */
export interface StepError extends Partial<RetryFields> {
  kind: "model" | "timeout" | "retrieval" | "system" | "internal";
  message: string;
}

/** Retries of one call of an HTTP model (see `lib/llm/retry_policy.ts`). */
export interface RetryFields {
  /** Attempts after the first. */
  retries: number;
  /** HTTP status of each failed attempt; 0 when no response came. */
  http_statuses: number[];
  /** Time slept between attempts, ms (included in `latency_ms`). */
  backoff_ms: number;
  /** Time waited for `model.rate_limit` before sending, ms (included in `latency_ms`). */
  throttle_ms: number;
}

/**
 * One model call of a question. The retry fields are present for HTTP
 * models and absent for the scripted mock, which never retries.
 */
export interface ModelStep extends Partial<RetryFields> {
  type: "model";
  usage: Usage;
  /** US dollars; null when the model's price is unknown (lib/llm/pricing.ts). */
  cost_usd: number | null;
  latency_ms: number;
  content: string | null;
  tool_calls: ToolCall[];
  /** Tools were withheld to force an answer (the final answer call). */
  final: boolean;
  /**
   * Served from the response cache (`--cache`): `usage` and `cost_usd` are
   * then 0 (nothing billed) and the recording's are in `recorded_usage` and
   * `recorded_cost_usd` (at this run's prices). Absent on live calls.
   */
  cached?: true;
  recorded_usage?: Usage;
  /** Null when the model's price is unknown. */
  recorded_cost_usd?: number | null;
  /**
   * A deployed pipeline's answer (`type: http` / `command` systems): the service's address
   * (without query or credentials) or the command's program. Its `usage` and `cost_usd` are what
   * the service reported (0 tokens and an unknown cost when it reports none) and `latency_ms` is
   * the whole call's, retries included. Absent on calls of ragbench's own models.
   */
  service?: string;
  /**
   * Framework systems: tool results the framework had reworded in the
   * conversation it sent (LlamaIndex re-quotes every result; frameworks word
   * an unknown tool or unparsable arguments their own way), restored to
   * ragbench's text before this call; each call id is listed once, on the
   * first call that restored it. Absent when nothing was restored.
   */
  restored?: { tool_call_id: string; framework_text: string }[];
}

/** One tool call of a question. */
export interface ToolStep {
  type: "tool";
  tool: string;
  call_id: string;
  /** Parsed arguments, or the raw text when it was not valid JSON. */
  args: JsonValue;
  result: ToolResult;
}

/** One passage a retriever returned, best first. */
export interface RetrievedPassage {
  passage_id: string;
  doc_id: string;
  /** The retriever's score (higher is better; its scale depends on the retriever kind). */
  score: number;
  /**
   * The passage's text as a deployed pipeline returned it (`type: http` / `command` systems,
   * when their `response.text` path is set), its first {@link MAX_CONTEXT_TEXT_CHARS}
   * characters; absent on other retrievals (their passages are the corpus's).
   */
  text?: string;
}

/** The most characters of a returned context's text a result line keeps. */
export const MAX_CONTEXT_TEXT_CHARS = 4000;

/**
 * One retrieval a system made itself, outside any tool (the `rag` and
 * `retrieval_only` systems). The scorer treats it like a `search` call. A
 * retriever that calls a service over HTTP (a reranker, the user's
 * retrieval service) adds its retries (`retries`, `http_statuses`,
 * `backoff_ms`, as on {@link ModelStep}); the others never set them.
 */
export interface RetrievalStep extends Partial<RetryFields> {
  type: "retrieval";
  /** Name of the retriever (a `retrievers:` key, or the system's name for an inline one). */
  retriever: string;
  query: string;
  /**
   * Passages asked for. Results as many as this mean the retriever may have had more: a ranking
   * cut by this depth (absent on lines of older runs).
   */
  k?: number;
  /** Ranked passages, best first. */
  results: RetrievedPassage[];
  latency_ms: number;
  /** Tokens sent to an embedding endpoint for the query (0 for lexical retrievers or cache hits). */
  embedding_tokens: number;
  /** US dollars; null when the embedding model's price is unknown. */
  cost_usd: number | null;
  /** Set when the retrieval failed (e.g. the embedding endpoint was down); results are then empty. */
  error: { kind: string; message: string } | null;
}

/** A step of a trace: a model call, a tool call, or a system's own retrieval. */
export type Step = ModelStep | ToolStep | RetrievalStep;

/** Why an agent stopped before answering on its own. */
export interface TraceFlags {
  /** The agent was stopped by a limit and asked to answer with what it had. */
  best_effort: boolean;
  /** A cost, token or tool-call cap (not the step limit) stopped it. */
  budget_exhausted: boolean;
  /**
   * The agent never produced a valid final answer in its reply format
   * (react_json: no valid `{"answer": ...}` action, not even on the final call; code agent: no
   * program of its ended with `final_answer(...)`).
   */
  format_error: boolean;
  /**
   * Present (true) only when the answer was cut: a code agent's `final_answer`
   * longer than 100,000 characters keeps its first 100,000.
   */
  answer_truncated?: boolean;
}

/** Everything one system did on one question (one repeat). */
export interface Trace {
  system: string;
  /** Id of the model the system used (`Model.id`, e.g. `openai:gpt-4o`); null when it calls none (retrieval_only). */
  model: string | null;
  question_id: string;
  repeat: number;
  steps: Step[];
  answer: string | null;
  usage: Usage;
  /**
   * US dollars billed; null when some step's cost is unknown (a model or
   * embedding model with no known price), never 0 for that.
   */
  cost_usd: number | null;
  latency_ms: number;
  flags: TraceFlags;
  /** Replies that were not a valid action in the system's reply format (react_json, code agent). */
  format_errors: number;
  /** Set when the question could not be completed (model error, bug, timeout). */
  error: StepError | null;
  /**
   * The documents the answer cites, as a custom system returned them (each a
   * document of the corpus); absent for other systems. Recorded, not scored:
   * retrieval is scored on the retrieval and tool calls of `steps`.
   */
  cited?: string[];
}

/** Result of one check of a question. */
export interface CheckResult {
  type: string;
  passed: boolean;
  detail: string;
}

/**
 * Retrieval scores of a trace (see `lib/score/retrieval.ts`): the document
 * ranking it was scored on, and the metrics against the question's evidence.
 */
export interface RetrievalScores {
  /** The trace made a retrieval: a retrieval step, or a call of a retrieval tool (failed ones too). */
  retrieved: boolean;
  /** Relevant documents (evidence) of the question. */
  relevant: number;
  /** Share of evidence documents anywhere in the ranking (null without evidence). */
  recall: number | null;
  /** Reciprocal rank of the first evidence document in the whole ranking (null without evidence). */
  mrr: number | null;
  /** `map`, then `<metric>@<k>` for each cut-off of `evaluation.retrieval_k` (null without evidence). */
  metrics: Record<string, number> | null;
  /** Ranked document ids, best first, in the order the metrics were computed on. */
  ranking: string[];
  /** The score each document of `ranking` was ranked by (same order). */
  scores: number[];
  /**
   * Documents in the ranking when a depth setting cut it short: the line's ranking comes from the
   * system's own retrievals, one of which returned every passage it asked for (`k`), so a metric
   * at a larger cut-off is computed on fewer documents than its name says. Null when no depth cut
   * it (an agent's ranking is what its searches showed it; absent on lines of older runs).
   */
  depth?: number | null;
}

/** Facts about the path an agent took. */
export interface TrajectoryScores {
  tool_calls: number;
  tool_errors: number;
  searches: number;
  distinct_queries: number;
  /** Model steps until evidence first appeared in a tool result (null if never). */
  steps_to_evidence: number | null;
  /** Calls of `search` or `corpus_grep` that returned without error (see `redundant_searches`). */
  scored_searches: number;
  /**
   * Of `scored_searches`, those that repeat an earlier one's normalised query
   * or list only documents already seen in the question.
   */
  redundant_searches: number;
  /** Every tool named in `requires_tools` was called (null when none is required). */
  required_tools_used: boolean | null;
}

/** A document of a ranking with the score it was ranked by. */
export interface RankedDoc {
  doc_id: string;
  score: number;
}

/**
 * Why a question failed, in precedence order (the rules that pick one are
 * `lib/score/failure_label.ts`; the list is here because the result line
 * carries it).
 */
export const FAILURE_LABELS = [
  "model_error",
  "tool_error",
  "budget_exhausted",
  "format_error",
  "retrieval_miss",
  "generation_miss",
  "other",
] as const;

/** One of {@link FAILURE_LABELS}. */
export type FailureLabel = typeof FAILURE_LABELS[number];

/** A scored trace: one line of `per_question_results.jsonl`. */
export interface QuestionResult extends Trace {
  question: string;
  kind: string | null;
  tags: string[];
  checks: CheckResult[];
  /** Share of checks passed, 0 when the question errored; null for a question without checks. */
  answer_score: number | null;
  /** All checks passed (and no error); null for a question without checks. */
  passed: boolean | null;
  /**
   * Why it failed (`lib/score/failure_label.ts`); null when it passed or has
   * no checks (scored by retrieval alone).
   */
  failure_label: FailureLabel | null;
  retrieval: RetrievalScores;
  trajectory: TrajectoryScores;
}
