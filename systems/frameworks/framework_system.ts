/**
 * The system type of an agent framework: the same options, prompt, tools
 * (`search` always, plus its `tools:` list), retriever and limits as
 * `agent_search`, with the loop run by the framework in a process of its own
 * (`host.ts`) and every model and tool call answered by ragbench
 * (`framework_loop.ts`). The plan starts the process when the run starts
 * (`SystemDef.start`), so loading the framework is in no question's time.
 *
 * @module
 */

import { toolSystemBaseSchema } from "../../lib/config/schema.ts";
import { FINAL_ANSWER_PROMPT } from "../agent_loop.ts";
import { AGENT_SEARCH_PROMPT } from "../agent_search.ts";
import { defineSystem, type SystemDef } from "../system.ts";
import { runFrameworkLoop } from "./framework_loop.ts";
import { createFrameworkHost, type HostOptions } from "./host.ts";
import type { FrameworkManifest } from "./registry.ts";

/** Options of every framework system (agent_search's, without `agent_mode`). */
export const frameworkOptionsSchema = toolSystemBaseSchema;

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
    prompts: [AGENT_SEARCH_PROMPT, FINAL_ANSWER_PROMPT],
    options: frameworkOptionsSchema,
    start(options) {
      const host = createFrameworkHost(manifest, hostOptions);
      return {
        ready: host.ready(),
        // The options are the system's own, validated once: the ones it was started with.
        run: (_options, ctx) =>
          runFrameworkLoop(host, ctx, {
            type: manifest.type,
            system: AGENT_SEARCH_PROMPT,
            limits: options,
          }),
        close: () => host.close(),
      };
    },
    run() {
      return Promise.reject(
        new TypeError(`the ${manifest.type} system runs only once started (SystemDef.start)`),
      );
    },
  });
}
