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
import type { SharedCorpus } from "./shared_corpus.ts";

/**
 * Handles host messages for the tools in `defs`. `fromShared` turns the
 * built-ins' worker's `corpus` message into its corpus (the worker passes
 * `corpusFromShared`; a custom tool's process gets its corpus in `init`).
 */
export function callServer(
  defs: ReadonlyMap<string, ToolDef>,
  reply: (message: SandboxMessage) => void,
  fromShared?: (shared: SharedCorpus) => Corpus | Promise<Corpus>,
): (message: HostMessage) => Promise<void> {
  let corpus: Corpus = { documents: [], tables: [] };
  let now = Temporal.PlainDate.from("2026-01-01");
  let toPrepare: string[] = [];
  const states = new Map<string, Map<string, Map<string, unknown>>>();
  const cancelled = new Set<number>();
  // A name it does not serve reads nothing (its call is answered unknown_tool).
  const readsCorpus = (name: string) => {
    const def = defs.get(name);
    return def !== undefined && def.readsCorpus !== false;
  };
  const prepare = async (name: string) => {
    try {
      await defs.get(name)?.prepare?.(corpus);
    } catch {
      // The tool's first call meets the same problem and reports it as its error.
    }
  };
  return async (message) => {
    if (message.type === "init") {
      now = Temporal.PlainDate.from(message.now);
      if (message.corpus !== undefined) {
        corpus = message.corpus;
        for (const name of message.prepare) await prepare(name);
        reply({ type: "prepared", ...nonceOf(message) });
        return;
      }
      toPrepare = message.prepare.filter(readsCorpus);
      const free = message.prepare.filter((name) => !readsCorpus(name));
      for (const name of free) await prepare(name);
      reply({ type: "prepared", tools: free });
      return;
    }
    if (message.type === "corpus") {
      if (fromShared !== undefined) corpus = await fromShared(message.corpus);
      // Tools without an index are ready now; the indexes are built while calls are served.
      const [plain, indexed] = [false, true].map((index) =>
        toPrepare.filter((name) => (defs.get(name)?.prepare !== undefined) === index)
      );
      reply({ type: "prepared", tools: plain });
      void (async () => {
        for (const name of indexed) {
          await prepare(name);
          reply({ type: "prepared", tools: [name] });
        }
        reply({ type: "prepared" });
      })();
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
