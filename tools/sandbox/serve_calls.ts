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
  return async (message) => {
    if (message.type === "init") {
      corpus = message.corpus;
      now = Temporal.PlainDate.from(message.now);
      return;
    }
    if (message.type === "end") {
      states.delete(message.questionKey);
      return;
    }
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
    reply({ type: "result", id: message.id, result });
  };
}
