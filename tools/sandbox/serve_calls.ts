/**
 * The sandbox side of the protocol, shared by the built-ins' worker and a
 * custom tool's subprocess: keeps the corpus and per-question state, runs
 * each call through `invokeTool` (which never throws) and answers it.
 *
 * @module
 */

import type { Corpus } from "../../lib/types.ts";
import type { ToolDef } from "../define_tool.ts";
import { stateFor } from "../host.ts";
import { invokeTool } from "../invoke.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";

/** Handles host messages for the tools in `defs`. */
export function callServer(
  defs: ReadonlyMap<string, ToolDef>,
  reply: (message: SandboxMessage) => void,
): (message: HostMessage) => Promise<void> {
  let corpus: Corpus = { documents: [], tables: [] };
  let now = Temporal.PlainDate.from("2026-01-01");
  const states = new Map<string, Map<string, Map<string, unknown>>>();
  const cancelled = new Set<number>();
  return async (message) => {
    if (message.type === "init") {
      corpus = message.corpus;
      now = Temporal.PlainDate.from(message.now);
      for (const name of message.prepare) {
        try {
          await defs.get(name)?.prepare?.(corpus);
        } catch {
          // The tool's first call meets the same problem and reports it as its error.
        }
      }
      reply({ type: "prepared", ...nonceOf(message) });
      return;
    }
    if (message.type === "end") {
      states.delete(message.questionKey);
      return;
    }
    if (message.type === "cancel") {
      cancelled.add(message.id);
      return;
    }
    if (message.type === "hello") return;
    for (const key of message.ended ?? []) states.delete(key);
    if (cancelled.delete(message.id)) return;
    const def = defs.get(message.tool);
    const result = def
      ? await invokeTool(def, message.args, {
        corpus,
        now,
        state: stateFor(states, message.questionKey, message.tool),
        signal: new AbortController().signal,
        options: message.options,
      })
      : {
        output: "",
        error: { kind: "unknown_tool" as const, message: `No tool named "${message.tool}".` },
        cost_usd: 0,
      };
    reply({ type: "result", id: message.id, result, ...nonceOf(message) });
  };
}

/** The request's nonce, to echo in its reply (custom tools' pipes use one; the worker does not). */
function nonceOf(message: { nonce?: string }): { nonce?: string } {
  return message.nonce === undefined ? {} : { nonce: message.nonce };
}

/**
 * Feeds host messages to `serve` one at a time, in order — a call never
 * overtakes `init` — except `cancel`, which takes effect at once so a call
 * still waiting in the queue is skipped.
 */
export function inOrder(
  serve: (message: HostMessage) => Promise<void>,
): (message: HostMessage) => void {
  let queue = Promise.resolve();
  return (message) => {
    if (message.type === "cancel") {
      void serve(message);
      return;
    }
    queue = queue.then(() => serve(message));
  };
}
