/**
 * The OpenAI-compatible chat model: chat completions with native tool calls,
 * through `npm:openai`, against OpenAI or any server speaking the same API
 * (vLLM, Ollama, llama.cpp, LiteLLM, ...).
 *
 * Permissions: only `--allow-net` for the model host. The SDK's constructor
 * looks up `OPENAI_*` environment variables for every option not passed
 * (through `process.env`, which makes Deno prompt on a terminal or fail
 * silently without `--allow-env`). All but one of those options are passed
 * explicitly; `OPENAI_CUSTOM_HEADERS` is read whatever is passed, so the
 * client is built with `process.env` hidden (see openai_client.ts).
 * That also keeps a stray variable from changing the headers sent with the key.
 * Failure messages are made in openai_errors.ts.
 *
 * @module
 */

import OpenAI from "openai";
import { openAIClient } from "./openai_client.ts";
import type { ToolCall } from "../types.ts";
import {
  type ChatMessage,
  type ChatResponse,
  type Model,
  ModelCallError,
  type Pricing,
  type ToolSpec,
} from "./model.ts";
import { describeFailure, type FailureContext, safeUrl } from "./openai_errors.ts";
import {
  type AttemptFailure,
  isRetryableStatus,
  RetriesExhausted,
  type RetryClock,
  SYSTEM_CLOCK,
  withRetries,
} from "./retry_policy.ts";

import { OPENAI_BASE_URL } from "./endpoint_text.ts";
import { DEFAULT_MAX_CONNECTION_FAILURES, type HostBreaker, HostBreakers } from "./host_breaker.ts";
import { estimateRequestTokens, type HostLimiter } from "./rate_limiter.ts";

export { OPENAI_BASE_URL };
/** Default time one HTTP attempt may take, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Default number of retries after a connection error, timeout, 408, 409, 429 or 5xx (see retry_policy.ts). */
export const DEFAULT_MAX_RETRIES = 2;

/** Options of {@link createOpenAIModel}. */
export interface OpenAIModelOptions {
  /** Model name as the API knows it, e.g. `gpt-4o-mini`. */
  name: string;
  /** API root, e.g. `http://127.0.0.1:11434/v1`; null or absent means OpenAI itself. */
  baseUrl?: string | null;
  /** Bearer key; null, absent or empty sends no `Authorization` header (local servers). */
  apiKey?: string | null;
  /**
   * USD per million input and output tokens (null: unknown); the model
   * exposes a frozen copy as `pricing`.
   */
  pricing: Pricing | null;
  /** Time one HTTP attempt may take, in ms (default 60 000); retries get the same again. */
  timeoutMs?: number;
  /** Retries after transient failures (default 2; 0 = none), made and recorded by retry_policy.ts. */
  maxRetries?: number;
  /** Clock, sleep and jitter source of the retries (default: the real ones); tests inject their own. */
  clock?: RetryClock;
  /** Sampling temperature; omitted from the request when not set (o-series models reject it). */
  temperature?: number;
  /**
   * Cap on output tokens. Sent as `max_completion_tokens` to OpenAI itself (the
   * o-series rejects `max_tokens`) and as `max_tokens` to other servers, which
   * may not know the newer name.
   */
  maxTokens?: number;
  /**
   * Stops calling the host after connection failures in a row (host_breaker.ts);
   * default: a breaker of this model alone at the default limit.
   */
  breaker?: HostBreaker;
  /** Paces the requests to `model.rate_limit` (rate_limiter.ts); absent or null: none. */
  limiter?: HostLimiter | null;
}

type ApiMessage = OpenAI.Chat.ChatCompletionMessageParam;
type ApiBody = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/**
 * Creates a {@link Model} that calls the chat-completions endpoint at
 * `options.baseUrl`. Its id is `openai:<name>`. `chat()` rejects only with
 * {@link ModelCallError}, whose message names the host and what to do and
 * never contains the API key; the SDK error is its `cause`. The signal given
 * to `chat()` cancels the HTTP request.
 *
 * @throws {ModelCallError} if `baseUrl` is not an http(s) URL.
 * @throws {RangeError} if `name` is empty or `timeoutMs` / `maxRetries` are out of range.
 */
export function createOpenAIModel(options: OpenAIModelOptions): Model {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (options.name.trim() === "") throw new RangeError("Model name must not be empty");
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  }
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries must be an integer >= 0, got ${maxRetries}`);
  }
  const baseUrl = options.baseUrl ?? OPENAI_BASE_URL;
  const site = safeUrl(baseUrl);
  const apiKey = options.apiKey || null;
  const context: FailureContext = {
    id: `openai:${options.name}`,
    name: options.name,
    site,
    apiKey,
    timeoutMs,
    maxRetries,
  };
  const client = openAIClient({ apiKey, baseUrl, timeoutMs });
  const officialApi = options.baseUrl == null;
  const breaker = options.breaker ??
    new HostBreakers().for(baseUrl, DEFAULT_MAX_CONNECTION_FAILURES);

  function requestBody(messages: ChatMessage[], tools: ToolSpec[]): ApiBody {
    const body: ApiBody = { model: options.name, messages: messages.map(toApiMessage) };
    if (tools.length > 0) {
      body.tools = tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      body.tool_choice = "auto";
    }
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.maxTokens !== undefined) {
      if (officialApi) body.max_completion_tokens = options.maxTokens;
      else body.max_tokens = options.maxTokens;
    }
    return body;
  }

  return {
    id: context.id,
    pricing: options.pricing && Object.freeze({ ...options.pricing }),
    async chat(request, signal) {
      const stopped = breaker.stopped();
      if (stopped !== null) throw new ModelCallError(stopped);
      const body = requestBody(request.messages, request.tools);
      const limiter = options.limiter ?? null;
      // Each attempt is a request: it waits for the limiter, and the wait is recorded.
      const estimated = limiter === null ? 0 : estimateRequestTokens(
        JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length,
        options.maxTokens ?? null,
      );
      let throttleMs = 0;
      const throttled = <R extends { throttle_ms?: number }>(report: R): R =>
        limiter === null ? report : { ...report, throttle_ms: throttleMs };
      let outcome;
      try {
        outcome = await withRetries(
          async (attemptSignal) => {
            if (limiter !== null) throttleMs += await limiter.acquire(estimated, attemptSignal);
            return await client.chat.completions.create(body, { signal: attemptSignal });
          },
          { maxRetries, clock: options.clock ?? SYSTEM_CLOCK, signal, classify: classifyAttempt },
        );
      } catch (error) {
        if (!(error instanceof RetriesExhausted)) throw error;
        if (limiter !== null) error.report.throttle_ms = throttleMs;
        const failure = describeFailure(error.cause, signal, {
          ...context,
          maxRetries: error.report.retries,
        });
        failure.attempts = error.report;
        if (!signal.aborted) {
          // No attempt got a response: the host may be down. Any response shows it is up.
          if (error.report.http_statuses.every((status) => status === 0)) {
            breaker.failedToConnect(failure.message);
          } else breaker.answered();
        }
        throw failure;
      }
      breaker.answered();
      const reply = parseReply(outcome.value, context);
      limiter?.settle(estimated, reply.usage.input_tokens + reply.usage.output_tokens);
      return { ...reply, attempts: throttled(outcome.report) };
    },
  };
}

/** Reads what the SDK threw for the retry loop (see retry_policy.ts for the rules). */
function classifyAttempt(error: unknown): AttemptFailure {
  if (error instanceof OpenAI.APIUserAbortError) {
    return { status: null, headers: null, retryable: false };
  }
  if (error instanceof OpenAI.APIConnectionError) {
    // A missing --allow-net is not cured by asking again.
    const denied = hasCause(error, (cause) => cause instanceof Deno.errors.NotCapable);
    return { status: null, headers: null, retryable: !denied };
  }
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const headers = error.headers instanceof Headers ? error.headers : null;
    return { status: error.status, headers, retryable: isRetryableStatus(error.status, headers) };
  }
  return { status: null, headers: null, retryable: false };
}

function hasCause(error: Error, test: (cause: unknown) => boolean): boolean {
  let current: unknown = error.cause;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    if (test(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

function toApiMessage(message: ChatMessage): ApiMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      // The API rejects an empty `tool_calls` list, and content null without tool calls.
      if (calls.length === 0) return { role: "assistant", content: message.content ?? "" };
      return {
        role: "assistant",
        content: message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
  }
}

/** Reads the reply defensively: OpenAI-compatible servers differ in what they send. */
function parseReply(reply: unknown, context: FailureContext): ChatResponse {
  const malformed = (what: string) =>
    new ModelCallError(
      `Model API at ${context.site} returned a malformed reply: ${what}. ` +
        "Check that model.base_url points to an OpenAI-compatible chat-completions API.",
    );
  if (!isRecord(reply)) throw malformed("the body is not a JSON object");
  const choices = reply.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw malformed("no choices");
  const first: unknown = choices[0];
  if (!isRecord(first) || !isRecord(first.message)) {
    throw malformed("the first choice has no message");
  }
  const message = first.message;
  const rawCalls = message.tool_calls ?? [];
  if (!Array.isArray(rawCalls)) throw malformed("tool_calls is not a list");
  const toolCalls: ToolCall[] = [];
  for (const [index, raw] of rawCalls.entries()) {
    const fn = isRecord(raw) ? raw.function : undefined;
    if (!isRecord(raw) || !isRecord(fn) || typeof fn.name !== "string") {
      throw malformed(`tool call ${index + 1} has no function name`);
    }
    toolCalls.push({
      // Some servers omit ids; the next request must still pair results with calls.
      id: typeof raw.id === "string" && raw.id !== "" ? raw.id : `call_${index}`,
      name: fn.name,
      arguments: rawArguments(fn.arguments),
    });
  }
  const usage = isRecord(reply.usage) ? reply.usage : {};
  return {
    content: typeof message.content === "string" ? message.content : null,
    tool_calls: toolCalls,
    usage: {
      input_tokens: count(usage.prompt_tokens),
      output_tokens: count(usage.completion_tokens),
    },
  };
}

/** The arguments as sent: text is kept verbatim (even if not valid JSON). */
function rawArguments(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value); // some servers send an object instead of JSON text
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
