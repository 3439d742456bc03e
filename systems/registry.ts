/**
 * Every system type, looked up by `type` with `Map.get`. Adding a system is
 * one file in `systems/` and one line here.
 *
 * @module
 */

import { agentSearch } from "./agent_search.ts";
import { closedBook } from "./closed_book.ts";
import { codeAgent } from "./code_agent.ts";
import { rag } from "./rag.ts";
import { retrievalOnly } from "./retrieval_only.ts";
import { grepAgent } from "./grep_agent.ts";
import { modelCallsOf, type SystemDef } from "./system.ts";
import { FRAMEWORKS } from "./frameworks/registry.ts";
import { frameworkSystem } from "./frameworks/framework_system.ts";

/** System types by name. */
export const SYSTEMS: ReadonlyMap<string, SystemDef> = new Map<string, SystemDef>([
  [closedBook.type, closedBook],
  [agentSearch.type, agentSearch],
  [rag.type, rag],
  [retrievalOnly.type, retrievalOnly],
  [codeAgent.type, codeAgent],
  [grepAgent.type, grepAgent],
  // Agent frameworks (ai_sdk, langgraph, ...), each run in a process of its own.
  ...[...FRAMEWORKS.values()].map((m): [string, SystemDef] => [m.type, frameworkSystem(m)]),
]);

/**
 * Whether a configured system calls a model at all (`retrieval_only` does
 * not): one that does not needs no API key, no model host and no model, and
 * shows none. Unknown types are taken to call one.
 */
export function callsModel(system: { type: string; options: Record<string, unknown> }): boolean {
  const def = SYSTEMS.get(system.type);
  return def === undefined || modelCallsOf(def, system.options).max > 0;
}
