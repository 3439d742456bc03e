/**
 * A system's toolbox: the tools it offers, as the model sees them, and the
 * one place a model's tool call is executed. Execution never throws: an
 * unknown tool, arguments that are not a JSON object, a timeout and every
 * failure inside the tool come back as a `ToolResult` with `error` set, which
 * the model reads and can recover from. Output longer than the run's
 * `max_output_chars` is cut and flagged `truncated` (at a result's end when
 * the tool says where its results end: `output_cut.ts`).
 *
 * @module
 */

import type { ToolSpec } from "../lib/llm/model.ts";
import type { JsonValue, SideEffects, ToolResult } from "../lib/types.ts";
import { closestMatch } from "../lib/util/did_you_mean.ts";
import type { ToolHost } from "./host.ts";
import { errorResult, type RawToolResult } from "./invoke.ts";
import { cutOutput } from "./output_cut.ts";

/** A tool a system offers, resolved from the config. */
export interface OfferedTool {
  name: string;
  description: string;
  sideEffects: SideEffects;
  /** JSON Schema of the arguments, as the model sees it. */
  parameters: Record<string, unknown>;
  /** Validated config options, passed to the tool as `ctx.options`. */
  options: Record<string, unknown>;
  timeoutMs: number;
  /** Where it runs. */
  host: ToolHost;
}

/** The tools of one question: execute calls, then close to drop per-question state. */
export interface ToolSession {
  readonly specs: readonly ToolSpec[];
  /** Runs a call. Never throws; the result says what went wrong. */
  execute(
    name: string,
    rawArgs: string,
    signal: AbortSignal,
  ): Promise<{ args: JsonValue; result: ToolResult }>;
  close(): void;
}

/** The tools of one system. */
export interface Toolbox {
  readonly tools: readonly OfferedTool[];
  readonly specs: readonly ToolSpec[];
  /**
   * A session for one question (one repeat); `questionKey` must be unique
   * among running questions. `repeat` (default 1) reaches the hosts, whose
   * tool cache keys on it.
   */
  session(questionKey: string, options?: { repeat?: number }): ToolSession;
}

/** Run-wide limits the toolbox enforces. */
export interface ToolboxRules {
  max_output_chars: number;
}

/** Builds a toolbox over `tools`. */
export function createToolbox(tools: readonly OfferedTool[], rules: ToolboxRules): Toolbox {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const specs: ToolSpec[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
  }));
  return {
    tools,
    specs,
    session(questionKey, options = {}) {
      const repeat = options.repeat ?? 1;
      const used = new Set<ToolHost>();
      return {
        specs,
        async execute(name, rawArgs, signal) {
          const started = performance.now();
          const tool = byName.get(name);
          const parsed = parseArgs(rawArgs);
          const args = parsed.ok ? parsed.value : rawArgs;
          let raw: RawToolResult;
          if (!tool) {
            const near = closestMatch(name, byName.keys());
            const offered = [...byName.keys()].join(", ") || "none";
            raw = errorResult(
              "unknown_tool",
              `No tool named "${name}"${
                near ? ` — did you mean "${near}"?` : ""
              } Available: ${offered}.`,
            );
          } else if (!parsed.ok) {
            raw = errorResult("invalid_args", parsed.message);
          } else {
            used.add(tool.host);
            raw = await callWithTimeout(tool, parsed.value, { questionKey, repeat }, signal);
          }
          return { args, result: finish(raw, rules, performance.now() - started) };
        },
        close() {
          for (const host of used) host.endQuestion(questionKey);
        },
      };
    },
  };
}

/** The text the model reads for a result: the output, or the error and its kind. */
export function toolMessageText(result: ToolResult): string {
  if (result.error) return `Error (${result.error.kind}): ${result.error.message}`;
  return result.output === "" ? "(no output)" : result.output;
}

async function callWithTimeout(
  tool: OfferedTool,
  args: JsonValue,
  question: { questionKey: string; repeat: number },
  signal: AbortSignal,
): Promise<RawToolResult> {
  // AbortSignal.timeout, not setTimeout: Deno 2.9's global setTimeout is Node's, and the first
  // one a process sets loads ~8 ms of Node emulation. The deadline's timer cannot be cleared; with
  // its listener removed it holds nothing of the call and keeps no process alive.
  const deadline = AbortSignal.timeout(tool.timeoutMs);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  let onDeadline = () => {};
  const timeout = new Promise<RawToolResult>((resolve) => {
    onDeadline = () => {
      controller.abort(new DOMException("tool timed out", "TimeoutError"));
      resolve(errorResult(
        "timeout",
        `The tool did not finish within ${
          formatSeconds(tool.timeoutMs)
        } and was stopped. Try simpler arguments.`,
      ));
    };
  });
  signal.addEventListener("abort", onAbort, { once: true });
  deadline.addEventListener("abort", onDeadline, { once: true });
  try {
    const call = tool.host.call({
      tool: tool.name,
      args,
      options: tool.options,
      questionKey: question.questionKey,
      ...(question.repeat === 1 ? {} : { repeat: question.repeat }),
      timeoutMs: tool.timeoutMs,
    }, controller.signal).catch((error) =>
      errorResult("execution", "The tool failed unexpectedly.", String(error))
    );
    return await Promise.race([call, timeout]);
  } finally {
    deadline.removeEventListener("abort", onDeadline);
    signal.removeEventListener("abort", onAbort);
  }
}

function finish(raw: RawToolResult, rules: ToolboxRules, latency: number): ToolResult {
  const { output, data, truncated } = cutOutput(raw, rules.max_output_chars);
  return {
    output,
    ...(data === undefined ? {} : { data }),
    error: raw.error,
    truncated,
    cost_usd: raw.cost_usd,
    latency_ms: round3(latency),
  };
}

type ParsedArgs = { ok: true; value: JsonValue } | { ok: false; message: string };

function parseArgs(raw: string): ParsedArgs {
  if (raw.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      message: `Arguments must be a JSON object; could not parse them (${
        (error as Error).message
      }).`,
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, message: "Arguments must be a JSON object of named parameters." };
  }
  if (nestedDeeperThan(value, MAX_ARGS_DEPTH)) {
    return {
      ok: false,
      message: `Arguments are nested more than ${MAX_ARGS_DEPTH} levels deep; no tool takes ` +
        "such arguments. Send a flat JSON object of named parameters.",
    };
  }
  return { ok: true, value: value as JsonValue };
}

/**
 * Deepest nesting of arrays and objects accepted in a tool call's arguments.
 * Far beyond any tool's parameters; what is deeper would only fail later,
 * less clearly (copying to the sandbox worker overflows past ~5,000 levels).
 */
export const MAX_ARGS_DEPTH = 100;

/** Whether `value` nests arrays or objects more than `limit` levels deep (walked with a list). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > limit) return true;
    for (const inner of Object.values(item)) pending.push([inner, depth + 1]);
  }
  return false;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
