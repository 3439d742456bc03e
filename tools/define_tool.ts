/**
 * The tool-author API: `defineTool`, the context a tool receives, and the
 * helpers a tool uses to return a structured result or an error.
 *
 * A tool's zod `parameters` schema is the single source of truth: the
 * arguments are validated with it and the JSON Schema the model sees is
 * generated from it. The context (`ctx`) is never part of that schema.
 *
 * @module
 */

import { z } from "zod";
import type { Corpus, JsonValue, SideEffects, ToolErrorKind } from "../lib/types.ts";

/** Per-call context a tool receives. The model never sees it. */
export interface ToolContext<O = Record<string, unknown>> {
  /** The corpus of the run (documents and tables). */
  corpus: Corpus;
  /** What "today" is for the whole run (`evaluation.tools_now`). */
  now: Temporal.PlainDate;
  /** State private to this tool for the current question; empty at its start. */
  state: Map<string, unknown>;
  /** Aborted when the call times out or the run is cancelled. */
  signal: AbortSignal;
  /** The tool's options from the config (validated by its `options` schema). */
  options: O;
}

const RESULT_BRAND = Symbol.for("ragbench.tool_result");

/** A structured tool return value, made by {@link toolResult} or {@link toolError}. */
export interface ToolReturnValue {
  readonly [RESULT_BRAND]: true;
  output?: string;
  data?: JsonValue;
  /**
   * US dollars this call cost; absent: 0. Null (a cost that could not be priced) is for the
   * built-in `search` over an embedding model of unknown price; a custom tool's null is an error.
   */
  cost_usd?: number | null;
  /**
   * Where the text of each `data.results[i]` ends in `output` (ascending
   * character offsets, one per result). With it, an output over the run's
   * `max_output_chars` is cut after the last result that fits, never inside
   * one, and the results left out are moved to `data.not_shown` (see
   * `tools/output_cut.ts`).
   */
  result_ends?: number[];
  error?: {
    kind: ToolErrorKind;
    /** What the model reads. */
    message: string;
    /** What the log keeps (defaults to `message`); never shown to the model. */
    detail?: string;
  };
}

/** What `run` may return: text (used as is), any JSON value (serialised), or a {@link ToolReturnValue}. */
export type ToolReturn = string | JsonValue | ToolReturnValue;

/** The definition of one tool. */
export interface ToolDef<
  P extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  /** Name the model calls it by: snake_case, unique in a run. */
  name: string;
  /** What the tool does and when to use it, written for the model. */
  description: string;
  /** Arguments the model passes; every field should carry `.describe(...)`. */
  parameters: P;
  sideEffects: SideEffects;
  /** Options a config may set for the tool (`{name: corpus_grep, max_results: 10}`). */
  options?: O;
  /**
   * Whether `run` reads `ctx.corpus` (default true). The sandbox worker gets
   * a large corpus some time after it starts (the main thread first writes
   * the text into shared memory); a built-in that declares `false` is served
   * from the start, before and while the corpus tools prepare, and sees an
   * empty corpus.
   */
  readsCorpus?: boolean;
  /**
   * Builds what the tool needs from the corpus (an index, say) before the run's
   * first call, so that cost is never charged to a call's timeout. Optional.
   */
  prepare?(corpus: Corpus): void | Promise<void>;
  /**
   * Loads the code `run` needs when the tool keeps it out of its own file (a
   * large engine behind `import()`). The sandbox worker calls it as soon as it
   * starts, before it has the corpus, so the loading overlaps the run's
   * start-up instead of delaying `prepare`. Optional.
   */
  load?(): Promise<unknown>;
  /** Does the work. May throw: the caller turns exceptions into error results. */
  run(args: z.output<P>, ctx: ToolContext<z.output<O>>): ToolReturn | Promise<ToolReturn>;
}

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;

/**
 * Declares a tool. Checks the definition's shape at once, so a malformed
 * custom tool fails when it is loaded rather than on its first call.
 *
 * @throws {TypeError} when the name, description or schemas are malformed.
 */
export function defineTool<P extends z.ZodObject, O extends z.ZodObject = z.ZodObject>(
  def: ToolDef<P, O>,
): ToolDef<P, O> {
  if (typeof def.name !== "string" || !TOOL_NAME.test(def.name)) {
    throw new TypeError(
      `Tool name "${
        String(def.name)
      }" is not valid: use letters, digits and _, starting with a letter (at most 64).`,
    );
  }
  if (typeof def.description !== "string" || def.description.trim() === "") {
    throw new TypeError(`Tool "${def.name}" needs a description.`);
  }
  if (!(def.parameters instanceof z.ZodObject)) {
    throw new TypeError(`Tool "${def.name}": parameters must be a z.object(...) schema.`);
  }
  for (const [key, field] of Object.entries(def.parameters.shape)) {
    if (!(field as z.ZodType).description) {
      throw new TypeError(
        `Tool "${def.name}": parameter "${key}" needs a description for the model — add .describe("...").`,
      );
    }
  }
  if (def.options !== undefined && !(def.options instanceof z.ZodObject)) {
    throw new TypeError(`Tool "${def.name}": options must be a z.object(...) schema.`);
  }
  if (!["none", "filesystem", "network"].includes(def.sideEffects)) {
    throw new TypeError(
      `Tool "${def.name}": sideEffects must be "none", "filesystem" or "network".`,
    );
  }
  if (def.readsCorpus !== undefined && typeof def.readsCorpus !== "boolean") {
    throw new TypeError(`Tool "${def.name}": readsCorpus must be true or false.`);
  }
  if (def.prepare !== undefined && typeof def.prepare !== "function") {
    throw new TypeError(`Tool "${def.name}": prepare must be a function of the corpus.`);
  }
  if (def.load !== undefined && typeof def.load !== "function") {
    throw new TypeError(`Tool "${def.name}": load must be a function that returns a promise.`);
  }
  if (typeof def.run !== "function") {
    throw new TypeError(`Tool "${def.name}" needs a run(args, ctx) function.`);
  }
  return def;
}

/** A successful result with structured `data` and/or a cost, beside the text the model reads. */
export function toolResult(
  init: { output?: string; data?: JsonValue; cost_usd?: number | null; result_ends?: number[] },
): ToolReturnValue {
  return { [RESULT_BRAND]: true, ...init };
}

/**
 * A failed call the model should read and can recover from.
 * `message` is for the model; `options.detail` is kept in the log only.
 */
export function toolError(
  kind: ToolErrorKind,
  message: string,
  options: { detail?: string; cost_usd?: number } = {},
): ToolReturnValue {
  return {
    [RESULT_BRAND]: true,
    error: { kind, message, detail: options.detail },
    cost_usd: options.cost_usd,
  };
}

/** True for values made by {@link toolResult} / {@link toolError}. */
export function isToolReturnValue(value: unknown): value is ToolReturnValue {
  return typeof value === "object" && value !== null &&
    (value as Record<symbol, unknown>)[RESULT_BRAND] === true;
}

/** Each tool's schema as JSON text: zod builds it in about a millisecond, and a run asks often. */
const schemaTexts = new WeakMap<ToolDef, string>();

/**
 * The JSON Schema of a tool's parameters, as the model sees it: a fresh
 * object on every call (callers may keep or change it), built by zod once
 * per tool.
 */
export function parametersJsonSchema(def: ToolDef): Record<string, unknown> {
  let text = schemaTexts.get(def);
  if (text === undefined) {
    const schema = z.toJSONSchema(def.parameters, { io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    text = JSON.stringify(schema);
    schemaTexts.set(def, text);
  }
  return JSON.parse(text);
}
