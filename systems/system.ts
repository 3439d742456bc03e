/**
 * What a system is: a named way of answering a question with the shared
 * model and tools. Each system is one file in `systems/` exporting one
 * `defineSystem(...)`, listed once in `systems/registry.ts`.
 *
 * @module
 */

import type { z } from "zod";
import type { Question } from "../lib/data/question_schema.ts";
import type { PromptSet } from "../lib/prompts/prompt_set.ts";
import type { MockPolicy } from "../lib/llm/mock_policy.ts";
import type { Retriever } from "../lib/retrieval/types.ts";
import type { TraceRecorder } from "../lib/trace/trace_recorder.ts";
import type { TraceFlags } from "../lib/types.ts";
import type { ToolSession } from "../tools/toolbox.ts";
import type { CacheMode } from "../lib/cache/cache_mode.ts";
import type { ResponseCache } from "../lib/cache/response_cache.ts";
import type { CacheStats } from "../lib/llm/cached_model.ts";
import type { RetryReport } from "../lib/llm/retry_policy.ts";

/**
 * Thrown when the code a system runs failed in a way that is the system's own
 * result, not a ragbench bug: an agent framework threw, returned no answer,
 * broke its process's protocol or its process died. The runner records it as
 * the question's error of kind `system` and the run goes on. `message` says
 * what failed.
 */
export class SystemFailedError extends Error {
  /** The retries of a deployed pipeline's failed call (`type: http` / `command`), recorded on the error. */
  attempts?: RetryReport;

  constructor(message: string, options?: { cause?: unknown; attempts?: RetryReport }) {
    super(message, options);
    this.name = "SystemFailedError";
    if (options?.attempts) this.attempts = options.attempts;
  }
}

/** What the plan tells a system it starts (see {@link SystemDef.start}). */
export interface SystemStartEnv {
  /** The system's name. */
  name: string;
  /** A `--mock` run: nothing may be sent to a service (recorded answers are replayed). */
  mock?: boolean;
  /** The config file's folder (relative paths of the system's options are its). */
  configDir?: string;
  /** The ids of the corpus's documents. */
  documentIds?: ReadonlySet<string>;
  /**
   * The run's response cache for answers of deployed pipelines (`--cache` in a live run,
   * replay in `--mock`); null or absent: none.
   */
  responses?: ResponseCacheSetup | null;
}

/** The response cache as a system uses it: the cache, its mode and the run's counts. */
export interface ResponseCacheSetup {
  cache: ResponseCache;
  mode: CacheMode;
  stats: CacheStats;
}

/** Everything a system gets for one question. */
export interface SystemContext {
  question: Question;
  /** Call the model and tools through this, so every step is recorded. */
  recorder: TraceRecorder;
  /** The system's tools for this question (no specs for a tool-less system). */
  tools: ToolSession;
  /**
   * The system's retriever (its `retriever:` option, shared by every system
   * naming the same one); null for a system type that takes no `retriever:`.
   * Retrieve through `recorder.retrieve` so the step is recorded.
   */
  retriever: Retriever | null;
  /**
   * How deep the system's own retrieval goes (see {@link SystemDef.retrievalDepth}), worked out
   * by the plan; absent (tests) or null: the retriever's `topK` passages.
   */
  depth?: RetrievalDepth | null;
  /** Aborted on the question timeout or when the run is cancelled. */
  signal: AbortSignal;
}

/**
 * How many results a system's own retrieval asks for: `count` passages, or
 * passages until the ranking holds `count` documents (or the retriever has
 * no more).
 */
export interface RetrievalDepth {
  count: number;
  unit: "passages" | "documents";
}

/** How a system finished a question. */
export interface SystemOutcome {
  answer: string | null;
  flags: TraceFlags;
  /** The documents the answer cites, when the system says (a custom system). */
  cited?: string[];
}

/** The definition of a system type. */
export interface SystemDef<O extends z.ZodObject = z.ZodObject> {
  /** The `type:` a config uses. */
  type: string;
  /** One line for `ragbench --help` and the README. */
  description: string;
  /** Whether a config may give it a `tools:` list. */
  acceptsTools: boolean;
  /** Why it takes no `tools:` list, for the load error (when `acceptsTools` is false). */
  noToolsReason?: string;
  /** Tools it always has, whatever its `tools:` list says. */
  alwaysTools: readonly string[];
  /**
   * Its prompts (`lib/prompts/prompt_set.ts`): the slots a config may set per
   * system under `prompts:`, with their defaults, and the protocol texts it
   * sends unchanged. Every text is hashed into `run.json` so a changed prompt
   * stops a resume; the first slot is its system prompt (the pre-flight
   * estimate counts it). Absent for a type that sends no prompt.
   */
  prompts?: PromptSet;
  /** Strict schema of its config entry (see `lib/config/schema.ts` bases). */
  options: O;
  /**
   * Model calls a question takes at least and at most, from its options
   * (default: 1 to `max_steps` when it has that option, else exactly 1).
   */
  modelCalls?(options: z.output<O>): { min: number; max: number };
  /**
   * For a system that retrieves itself (`recorder.retrieve`): how deep, from its retriever's
   * `top_k` (null when the config sets none) and the run's metric cut-offs
   * (`evaluation.retrieval_k`). `validate` warns when it is below a cut-off.
   */
  retrievalDepth?(topK: number | null, cutoffs: readonly number[]): RetrievalDepth;
  /**
   * It ranks whole documents (`Retriever.searchDocuments`): the plan builds
   * its retriever's document index before the first question.
   */
  ranksDocuments?: boolean;
  /**
   * How the scripted mock (`--mock`) answers the reply protocols this system's
   * requests name (`ChatRequest.protocol`) besides the default `tools`, which
   * the mock answers itself: one policy a protocol, declared here beside the
   * system that owns the format (`systems/registry.ts` hands them all to the
   * mock). A system that only uses function calling or plain text needs none.
   */
  mock?: readonly MockPolicy[];
  /** Answers one question. May reject (e.g. the model API failed); the runner records it. */
  run(options: z.output<O>, ctx: SystemContext): Promise<SystemOutcome>;
  /**
   * For a system that needs something running for the whole run (an agent
   * framework's process): the plan calls it once per system, uses the
   * instance's `run` instead of {@link SystemDef.run}, waits for `ready`
   * before the system's first question, and closes it with the plan.
   * `env.configFile` (the config's absolute path) anchors paths the options
   * give (a custom system's module).
   */
  start?(options: z.output<O>, env: SystemStartEnv): SystemInstance;
  /**
   * The permissions it needs besides the run's (a service's host, the program it runs, the
   * variables its `${VAR}` templates name), from its options; `mock`: a `--mock` run.
   */
  needs?(
    options: z.output<O>,
    ctx: { name: string; mock: boolean; replay: boolean; configDir: string },
  ): SystemNeed[];
  /**
   * Its answers are recorded in the response cache, and a `--mock` run replays them (a deployed
   * pipeline): a `--mock` run with such a system opens the cache to read them.
   */
  replaysInMock?: boolean;
}

/** One permission a system needs (in the shape of `lib/plan/need.ts` `Need`). */
export interface SystemNeed {
  name: "env" | "net" | "run" | "read";
  /** Variable, host:port, program or path; "" for every one. */
  value: string;
  why: string;
}

/** What {@link SystemDef.start} returns: a system's resources for one run. */
export interface SystemInstance {
  /** Resolves when the system can take questions; a rejection stops the run. */
  ready: Promise<void>;
  /**
   * Later in the run: null when a question can start at once, else a promise
   * that resolves (never rejects) when one can — a process replacing a killed
   * one is loading. The runner holds the system's next question until then,
   * so the wait is in no question's latency or timeout. Absent: always ready.
   */
  pending?(): Promise<void> | null;
  run(options: Record<string, unknown>, ctx: SystemContext): Promise<SystemOutcome>;
  close(): Promise<void>;
}

/** Declares a system type (identity, for type inference). */
export function defineSystem<O extends z.ZodObject>(def: SystemDef<O>): SystemDef<O> {
  return def;
}

/** Flags of a system that answered on its own. */
export const NO_FLAGS: TraceFlags = {
  best_effort: false,
  budget_exhausted: false,
  format_error: false,
};

/**
 * How deep a system's own retrieval goes, from its retriever's `top_k` (null
 * when not set) and the run's cut-offs; null for a system that does not
 * retrieve itself (see {@link SystemDef.retrievalDepth}).
 */
export function retrievalDepthOf(
  def: SystemDef,
  topK: number | null,
  cutoffs: readonly number[],
): RetrievalDepth | null {
  return def.retrievalDepth ? def.retrievalDepth(topK, cutoffs) : null;
}

/** Model calls per question of `def` with `options` (see {@link SystemDef.modelCalls}). */
export function modelCallsOf(
  def: SystemDef,
  options: Record<string, unknown>,
): { min: number; max: number } {
  if (def.modelCalls) return def.modelCalls(options);
  const steps = options.max_steps;
  return typeof steps === "number" ? { min: 1, max: steps } : { min: 1, max: 1 };
}
