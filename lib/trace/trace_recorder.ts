/**
 * Records the steps of one question as a system takes them: every model call
 * (usage, cost, latency, reply), every tool call (arguments, result) and
 * every retrieval a system makes itself (query, ranked passages, embedding
 * tokens and cost). The runner owns the recorder, so the steps taken before a
 * failure are kept; it closes the recorder when it takes the trace
 * ({@link TraceRecorder.close}), so a system still running after its question
 * timed out changes nothing of the result already scored and written.
 *
 * @module
 */

import type { ChatRequest, ChatResponse, Model } from "../llm/model.ts";
import { addCost, costOf } from "../llm/model.ts";
import type { RetrievalHit, Retriever } from "../retrieval/types.ts";
import type { ModelStep, RetrievalStep, Step, ToolCall, ToolResult, Usage } from "../types.ts";
import { ReplayMissError } from "../llm/cached_model.ts";
import type { RetryReport } from "../llm/retry_policy.ts";
import type { ToolSession } from "../../tools/toolbox.ts";

/**
 * Thrown by a system whose own retrieval failed, to end the question as a
 * `retrieval` error (the runner records it; the run goes on).
 */
export class RetrievalFailedError extends Error {
  constructor(step: RetrievalStep) {
    super(`retriever "${step.retriever}" failed: ${step.error?.message ?? "unknown error"}`);
    this.name = "RetrievalFailedError";
  }
}

/** Running totals and the steps of one question. */
export class TraceRecorder {
  readonly steps: Step[] = [];
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0 };
  /**
   * Model, tool and retrieval cost so far, US dollars (billed: replayed calls
   * cost 0); null once any part is unknown (a model or embedding model with
   * no known price).
   */
  costUsd: number | null = 0;
  /** Tokens of model calls served from the response cache, as recorded. */
  readonly recordedUsage: Usage = { input_tokens: 0, output_tokens: 0 };
  /** Cost of those calls when they were recorded, US dollars (at the run's prices); null if unknown. */
  recordedCostUsd: number | null = 0;
  modelCalls = 0;
  toolCalls = 0;
  /** Embedding tokens spent on retrieval queries so far. */
  embeddingTokens = 0;
  /** Replies that were not a valid action in the system's reply format. */
  formatErrors = 0;
  // Not a #field: a system may be handed the recorder behind a Proxy (tests do).
  private closed = false;

  /**
   * `repeat` (1-based; default 1) is stamped on every request, so the
   * response cache keeps each repeat's recording apart (see `ChatRequest.repeat`).
   */
  constructor(readonly model: Model, readonly repeat = 1) {}

  /**
   * Calls the model and records the step. `final` marks the forced answer
   * call (tools withheld). Rejects when the model call fails.
   */
  async chat(request: ChatRequest, signal: AbortSignal, final = false): Promise<ChatResponse> {
    this.checkOpen();
    const started = performance.now();
    let reply: ChatResponse;
    try {
      reply = await this.model.chat(
        this.repeat === 1 ? request : { ...request, repeat: this.repeat },
        signal,
      );
    } catch (error) {
      if (error instanceof ReplayMissError) {
        error.step = this.steps.length + 1;
        error.call = this.modelCalls + 1;
      }
      throw error;
    }
    this.checkOpen();
    const cost = costOf(reply.usage, this.model.pricing);
    this.modelCalls++;
    const step: ModelStep = {
      type: "model",
      usage: { ...reply.usage },
      cost_usd: cost,
      latency_ms: elapsed(started),
      content: reply.content,
      tool_calls: reply.tool_calls,
      final,
      ...(reply.attempts === undefined ? {} : {
        retries: reply.attempts.retries,
        http_statuses: [...reply.attempts.http_statuses],
        backoff_ms: reply.attempts.backoff_ms,
        ...(reply.attempts.throttle_ms === undefined
          ? {}
          : { throttle_ms: reply.attempts.throttle_ms }),
      }),
    };
    if (reply.cached) {
      // Billed nothing; what the recording cost is kept beside it.
      this.recordedUsage.input_tokens += reply.usage.input_tokens;
      this.recordedUsage.output_tokens += reply.usage.output_tokens;
      this.recordedCostUsd = addCost(this.recordedCostUsd, cost);
      Object.assign(step, {
        usage: { input_tokens: 0, output_tokens: 0 },
        cost_usd: 0,
        cached: true,
        recorded_usage: { ...reply.usage },
        recorded_cost_usd: cost,
      });
    } else {
      this.usage.input_tokens += reply.usage.input_tokens;
      this.usage.output_tokens += reply.usage.output_tokens;
      this.costUsd = addCost(this.costUsd, cost);
    }
    this.steps.push(step);
    return reply;
  }

  /**
   * Records a deployed pipeline's answer to the question (`type: http` / `command` systems): a
   * retrieval step of its contexts, then a model step of its answer, usage, cost, latency and
   * retries (see {@link ServiceCall}). Nothing once the recording is closed.
   */
  service(call: ServiceCall): void {
    if (!this.closed) recordServiceCall(this, call);
  }

  /** Counts one reply that was not a valid action (react_json, code agent); the loop shows the model why. */
  formatError(): void {
    if (!this.closed) this.formatErrors++;
  }

  /**
   * Ends the question's recording: the runner has taken the trace. A system
   * that goes on (it ignored the question's signal) records nothing more, and
   * its next model call rejects, so it stops spending.
   */
  close(): void {
    this.closed = true;
  }

  /** @throws {Error} once the recording is closed. */
  private checkOpen(): void {
    if (this.closed) throw new Error("the question is over: nothing more is recorded");
  }

  /** Executes a tool call through the session and records the step. Never rejects. */
  async tool(session: ToolSession, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    const { args, result } = await session.execute(call.name, call.arguments, signal);
    if (this.closed) return result;
    this.costUsd = addCost(this.costUsd, result.cost_usd);
    this.toolCalls++;
    this.steps.push({ type: "tool", tool: call.name, call_id: call.id, args, result });
    return result;
  }

  /**
   * Retrieves the `k` best passages for `query` (no length limit) and records
   * a retrieval step; its cost (embedding the query) is added to the
   * question's. With `options.documents`, the ranking holds at least that
   * many documents: a retriever that ranks whole documents
   * (`Retriever.searchDocuments`; each result's `passage_id` is then the
   * document id) is asked for exactly that many; any other is asked again
   * for twice as many passages while the ranking holds fewer documents and
   * the retriever returned all it was asked for (one step is recorded, with
   * the last `k` asked). Never rejects: a failure, including an abort, is
   * recorded on the step (`error`, no results) and the step is returned for
   * the system to decide (a `rag` system then fails the question; see its
   * file).
   */
  async retrieve(
    retriever: Retriever,
    query: string,
    k: number,
    signal: AbortSignal,
    options: { documents?: number } = {},
  ): Promise<{ step: RetrievalStep; hits: RetrievalHit[] }> {
    const started = performance.now();
    let hits: RetrievalHit[] = [];
    let tokens = 0;
    let cost: number | null = 0;
    let error: RetrievalStep["error"] = null;
    let attempts: RetryReport | undefined;
    let asked = k;
    try {
      const documents = options.documents ?? 0;
      if (documents > 0 && retriever.searchDocuments) {
        asked = documents;
        const outcome = await retriever.searchDocuments(query, documents, signal);
        hits = outcome.hits;
        tokens = outcome.embedding_tokens;
        cost = outcome.cost_usd;
        attempts = addAttempts(attempts, outcome.attempts);
      } else {
        const available = retriever.passages.length;
        for (;;) {
          const outcome = await retriever.search(query, asked, signal);
          hits = outcome.hits;
          tokens += outcome.embedding_tokens;
          cost = addCost(cost, outcome.cost_usd);
          attempts = addAttempts(attempts, outcome.attempts);
          if (hits.length < asked || asked >= available || distinctDocs(hits) >= documents) break;
          asked = Math.min(available, asked * 2);
        }
      }
    } catch (caught) {
      error = {
        kind: signal.aborted ? "timeout" : "retrieval",
        message: caught instanceof Error ? caught.message : String(caught),
      };
      attempts = addAttempts(attempts, attemptsOf(caught));
    }
    const step: RetrievalStep = {
      type: "retrieval",
      retriever: retriever.name,
      query,
      k: asked,
      results: hits.map((h) => ({
        passage_id: h.passage.id,
        doc_id: h.passage.doc_id,
        score: h.score,
      })),
      latency_ms: elapsed(started),
      embedding_tokens: tokens,
      cost_usd: cost,
      error,
      ...(attempts ?? {}),
    };
    if (this.closed) return { step, hits };
    this.costUsd = addCost(this.costUsd, cost);
    this.embeddingTokens += tokens;
    this.steps.push(step);
    return { step, hits };
  }
}

/** The sum of two calls' retries (undefined when neither made an HTTP call). */
function addAttempts(
  a: RetryReport | undefined,
  b: RetryReport | undefined,
): RetryReport | undefined {
  if (b === undefined) return a;
  if (a === undefined) return { ...b, http_statuses: [...b.http_statuses] };
  return {
    retries: a.retries + b.retries,
    http_statuses: [...a.http_statuses, ...b.http_statuses],
    backoff_ms: a.backoff_ms + b.backoff_ms,
  };
}

/** The retries a failed call carries (`EngineError.attempts`), if any. */
function attemptsOf(error: unknown): RetryReport | undefined {
  const attempts = (error as { attempts?: unknown } | null)?.attempts;
  if (typeof attempts !== "object" || attempts === null) return undefined;
  const { retries, http_statuses, backoff_ms } = attempts as Partial<RetryReport>;
  if (typeof retries !== "number" || !Array.isArray(http_statuses)) return undefined;
  return { retries, http_statuses, backoff_ms: typeof backoff_ms === "number" ? backoff_ms : 0 };
}

/** A deployed pipeline's answer to one question, as {@link TraceRecorder.service} records it. */
export interface ServiceCall {
  /** Names the retrieval step (the system's name). */
  system: string;
  /** The question as sent. */
  query: string;
  /** Where it was answered (see `ModelStep.service`). */
  target: string;
  answer: string | null;
  /** The contexts it returned, best first; null when it reports none. */
  contexts: readonly { doc_id: string; passage_id: string; score: number; text?: string }[] | null;
  /** Null when it reports no token counts. */
  usage: Usage | null;
  /** Null when it reports no cost. */
  cost_usd: number | null;
  latency_ms: number;
  /** Served from the response cache (or replayed by `--mock`): billed nothing. */
  cached: boolean;
  /** Retries of a live call. */
  attempts?: { retries: number; http_statuses: number[]; backoff_ms: number };
}

/**
 * Records `call` on `recorder` (see {@link TraceRecorder.service}): a retrieval step of the contexts (when the
 * service reports them; its latency is 0, the call's time is on the next
 * step), then a model step holding the answer, the service's usage and cost
 * and the call's latency and retries. A cached call is billed nothing; what
 * it cost when recorded is kept beside it, as for a cached model call.
 */
function recordServiceCall(recorder: TraceRecorder, call: ServiceCall): void {
  if (call.contexts !== null) {
    recorder.steps.push({
      type: "retrieval",
      retriever: call.system,
      query: call.query,
      results: call.contexts.map((c) => ({ ...c })),
      latency_ms: 0,
      embedding_tokens: 0,
      cost_usd: 0,
      error: null,
    });
  }
  const usage = call.usage ?? { input_tokens: 0, output_tokens: 0 };
  const step: ModelStep = {
    type: "model",
    usage: { ...usage },
    cost_usd: call.cost_usd,
    latency_ms: call.latency_ms,
    content: call.answer,
    tool_calls: [],
    final: true,
    service: call.target,
    ...(call.attempts === undefined ? {} : {
      retries: call.attempts.retries,
      http_statuses: [...call.attempts.http_statuses],
      backoff_ms: call.attempts.backoff_ms,
    }),
  };
  recorder.modelCalls++;
  if (call.cached) {
    recorder.recordedUsage.input_tokens += usage.input_tokens;
    recorder.recordedUsage.output_tokens += usage.output_tokens;
    recorder.recordedCostUsd = addCost(recorder.recordedCostUsd, call.cost_usd);
    Object.assign(step, {
      usage: { input_tokens: 0, output_tokens: 0 },
      cost_usd: 0,
      cached: true,
      recorded_usage: { ...usage },
      recorded_cost_usd: call.cost_usd,
    });
  } else {
    recorder.usage.input_tokens += usage.input_tokens;
    recorder.usage.output_tokens += usage.output_tokens;
    recorder.costUsd = addCost(recorder.costUsd, call.cost_usd);
  }
  recorder.steps.push(step);
}

function distinctDocs(hits: readonly RetrievalHit[]): number {
  return new Set(hits.map((h) => h.passage.doc_id)).size;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
