/**
 * The system type of an agent framework: the same options, prompt, tools
 * (`search` always, plus its `tools:` list), retriever and limits as
 * `agent_search`, with the loop run by the framework in a process of its own
 * (`host.ts`) and every model and tool call answered by ragbench
 * (`framework_loop.ts`). The plan starts the process when the run starts
 * (`SystemDef.start`), so loading the framework is in no question's time; a
 * process killed later is replaced before the system's next question starts
 * (`SystemInstance.pending`).
 *
 * @module
 */

import { toolSystemBaseSchema } from "../../lib/config/schema.ts";
import { FINAL_ANSWER_PROMPT } from "../agent_loop.ts";
import { AGENT_SEARCH_PROMPT } from "../agent_search.ts";
import { agentPromptSet, agentTexts } from "../agent_prompts.ts";
import { defineSystem, type SystemDef } from "../system.ts";
import { runFrameworkLoop } from "./framework_loop.ts";
import type { FrameworkHost, HostOptions } from "./host.ts";
import type { FrameworkManifest } from "./registry.ts";

/** The prompts of every framework system: agent_search's (`system`, `final_answer`). */
export const FRAMEWORK_PROMPTS = agentPromptSet({
  system: AGENT_SEARCH_PROMPT,
  final_answer: FINAL_ANSWER_PROMPT,
});

/** Options of every framework system (agent_search's, without `agent_mode`). */
export const frameworkOptionsSchema = toolSystemBaseSchema.extend({
  prompts: FRAMEWORK_PROMPTS.schema.optional(),
});

/** The system type of `manifest`'s framework. */
export function frameworkSystem(
  manifest: FrameworkManifest,
  hostOptions: HostOptions = {},
): SystemDef<typeof frameworkOptionsSchema> {
  return defineSystem({
    type: manifest.type,
    description: manifest.description,
    acceptsTools: true,
    alwaysTools: ["search"],
    prompts: FRAMEWORK_PROMPTS,
    options: frameworkOptionsSchema,
    start(options) {
      // The host (and the process code under it) is loaded only by a run that has a framework.
      const host = import("./host.ts").then((m) => m.createFrameworkHost(manifest, hostOptions));
      let started: FrameworkHost | null = null;
      void host.then((h) => started = h, () => {});
      return {
        ready: host.then((h) => h.ready()),
        // Until the host is loaded, `ready` holds the first question.
        pending: () => started?.pending() ?? null,
        // The options are the system's own, validated once: the ones it was started with.
        run: async (_options, ctx) =>
          runFrameworkLoop(await host, ctx, {
            type: manifest.type,
            ...agentTexts(FRAMEWORK_PROMPTS, options, ctx),
            limits: options,
          }),
        close: async () => (await host).close(),
      };
    },
    run() {
      return Promise.reject(
        new TypeError(`the ${manifest.type} system runs only once started (SystemDef.start)`),
      );
    },
  });
}
