/**
 * The seam between the toolbox and where a tool's code runs. A host runs
 * tool definitions it knows by name and keeps per-question state; the
 * toolbox adds timeouts, truncation and timing on top.
 *
 * `createInProcessHost` runs tools on the calling thread (used by unit tests
 * and as the baseline of the sandbox benchmark); the sandboxed hosts live in
 * `tools/sandbox/`.
 *
 * @module
 */

import type { Corpus } from "../lib/types.ts";
import type { ToolContext, ToolDef } from "./define_tool.ts";
import { invokeTool, type RawToolResult } from "./invoke.ts";

/** One call as a host receives it. */
export interface HostCall {
  tool: string;
  /** Parsed JSON arguments from the model (validated by the host). */
  args: unknown;
  /** Validated config options of the tool. */
  options: Record<string, unknown>;
  /** Identifies the question, for per-question tool state. */
  questionKey: string;
  /** The question's repeat (1-based; absent means 1): the tool cache keys on it. */
  repeat?: number;
  timeoutMs: number;
}

/** Runs tools somewhere; never throws from `call`. */
export interface ToolHost {
  /** Runs one call. Resolves with an error result on any failure, including timeout. */
  call(call: HostCall, signal: AbortSignal): Promise<RawToolResult>;
  /** Forgets the state tools kept for a question. */
  endQuestion(questionKey: string): void;
  /** Releases workers and processes. Idempotent. */
  close(): Promise<void>;
}

/** What every host needs to build tool contexts. */
export interface HostEnv {
  corpus: Corpus;
  /** `evaluation.tools_now`, YYYY-MM-DD. */
  now: string;
}

/**
 * A host that runs the given definitions on the calling thread. A timeout
 * aborts `ctx.signal` and abandons the call; it cannot stop a synchronous
 * loop, which is why runs use the sandboxed hosts.
 */
export function createInProcessHost(defs: readonly ToolDef[], env: HostEnv): ToolHost {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const now = Temporal.PlainDate.from(env.now);
  const states = new Map<string, Map<string, Map<string, unknown>>>();
  return {
    async call(call, signal) {
      const def = byName.get(call.tool);
      if (!def) {
        return {
          output: "",
          error: { kind: "unknown_tool", message: `No tool named "${call.tool}".` },
          cost_usd: 0,
        };
      }
      const ctx: ToolContext = {
        corpus: env.corpus,
        now,
        state: stateFor(states, call.questionKey, call.tool),
        signal: AbortSignal.any([signal, AbortSignal.timeout(call.timeoutMs)]),
        options: call.options,
      };
      return await invokeTool(def, call.args, ctx);
    },
    endQuestion(questionKey) {
      states.delete(questionKey);
    },
    close() {
      states.clear();
      return Promise.resolve();
    },
  };
}

/** The state map of one tool for one question, created on first use. */
export function stateFor(
  states: Map<string, Map<string, Map<string, unknown>>>,
  questionKey: string,
  tool: string,
): Map<string, unknown> {
  let perQuestion = states.get(questionKey);
  if (!perQuestion) states.set(questionKey, perQuestion = new Map());
  let state = perQuestion.get(tool);
  if (!state) perQuestion.set(tool, state = new Map());
  return state;
}
