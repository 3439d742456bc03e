/**
 * Turns a loaded config into runnable systems: picks each system's
 * definition, resolves the tools it offers (its always-on tools, then its
 * `tools:` list) and starts the hosts those tools run in.
 *
 * @module
 */

import type { Config, ToolRef } from "../config/load.ts";
import type { PlannedSystem } from "../run/runner.ts";
import type { SummarySystem } from "../report/outputs.ts";
import type { Corpus } from "../types.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { parametersJsonSchema } from "../../tools/define_tool.ts";
import { createInProcessHost, type ToolHost } from "../../tools/host.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { createToolbox, type OfferedTool } from "../../tools/toolbox.ts";

/** Runnable systems and the hosts to close when the run ends. */
export interface Plan {
  systems: PlannedSystem[];
  /** Name, type and offered tools of each system, for the summaries. */
  summary: SummarySystem[];
  close(): Promise<void>;
}

/** Builds the plan. The caller must `close()` it on every path. */
export function planSystems(config: Config, corpus: Corpus): Plan {
  const builtinHost = createInProcessHost([...BUILTIN_TOOLS.values()], {
    corpus,
    now: config.evaluation.tools_now,
  });
  const hosts: ToolHost[] = [builtinHost];
  const systems: PlannedSystem[] = [];
  for (const system of config.systems) {
    const def = SYSTEMS.get(system.type);
    if (!def) {
      throw new TypeError(
        `system type "${system.type}" passed config validation but is not registered`,
      );
    }
    const refs: ToolRef[] = def.alwaysTools
      .filter((name) => !system.tools.some((t) => t.name === name))
      .map((name) => ({ kind: "builtin", name, options: defaultOptions(name) }));
    refs.push(...system.tools);
    const offered = refs.map((ref) => offerBuiltin(ref, builtinHost, config));
    systems.push({
      name: system.name,
      def,
      options: system.options,
      toolbox: createToolbox(offered, config.tools),
    });
  }
  return {
    systems,
    summary: systems.map((s) => ({
      name: s.name,
      type: s.def.type,
      tools: s.toolbox.tools.map((t) => t.name),
    })),
    async close() {
      await Promise.all(hosts.map((h) => h.close()));
    },
  };
}

function offerBuiltin(ref: ToolRef, host: ToolHost, config: Config): OfferedTool {
  if (ref.kind !== "builtin") {
    throw new TypeError(`custom tool "${ref.name}" cannot be offered by the built-in host`);
  }
  const def = BUILTIN_TOOLS.get(ref.name);
  if (!def) throw new TypeError(`built-in tool "${ref.name}" is not registered`);
  return {
    name: def.name,
    description: def.description,
    sideEffects: def.sideEffects,
    parameters: parametersJsonSchema(def),
    options: ref.options,
    timeoutMs: config.tools.timeout_s * 1000,
    host,
  };
}

function defaultOptions(name: string): Record<string, unknown> {
  const def = BUILTIN_TOOLS.get(name);
  return (def?.options?.parse({}) ?? {}) as Record<string, unknown>;
}
