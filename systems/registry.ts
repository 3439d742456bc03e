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
import { http } from "./http.ts";
import { command } from "./command.ts";
import { modelCallsOf, type SystemDef } from "./system.ts";
import type { MockPolicy } from "../lib/llm/mock_policy.ts";
import { TOOLS_PROTOCOL } from "../lib/llm/model.ts";
import { FRAMEWORKS } from "./frameworks/registry.ts";
import { frameworkSystem } from "./frameworks/framework_system.ts";
import { customSystem } from "./custom/custom_system.ts";

/** System types by name. */
export const SYSTEMS: ReadonlyMap<string, SystemDef> = new Map<string, SystemDef>([
  [closedBook.type, closedBook],
  [agentSearch.type, agentSearch],
  [rag.type, rag],
  [retrievalOnly.type, retrievalOnly],
  [codeAgent.type, codeAgent],
  [grepAgent.type, grepAgent],
  [customSystem.type, customSystem],
  // Deployed pipelines: a service over HTTP, or a program per question.
  [http.type, http],
  [command.type, command],
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

/**
 * The mock policy of each reply protocol some system declares (`SystemDef.mock`).
 *
 * @throws {TypeError} when two systems declare different policies for one
 *   protocol, or one declares a policy for the mock's own `tools`.
 */
export function mockPoliciesOf(systems: Iterable<SystemDef>): ReadonlyMap<string, MockPolicy> {
  const policies = new Map<string, MockPolicy>();
  for (const def of systems) {
    for (const policy of def.mock ?? []) {
      const earlier = policies.get(policy.protocol);
      if (policy.protocol === TOOLS_PROTOCOL) {
        throw new TypeError(
          `system type "${def.type}" declares a mock policy for "${TOOLS_PROTOCOL}", which the mock answers itself`,
        );
      }
      if (earlier && earlier !== policy) {
        throw new TypeError(
          `system type "${def.type}" declares a second mock policy for the protocol "${policy.protocol}"`,
        );
      }
      policies.set(policy.protocol, policy);
    }
  }
  return policies;
}

/** Every system's mock policies, by protocol: what `--mock` runs hand the scripted mock. */
export const MOCK_POLICIES: ReadonlyMap<string, MockPolicy> = mockPoliciesOf(SYSTEMS.values());
