/**
 * The Mastra adapter (`@mastra/core`): an `Agent` whose model is ragbench's
 * model as an AI SDK `LanguageModelV4` (`ai_sdk_model.ts`; Mastra takes AI
 * SDK models and calls `doGenerate`) and whose tools are `createTool`s over
 * ragbench's toolbox. Runs in the framework's own process (see
 * `registry.ts`).
 *
 * Facts it relies on (@mastra/core 1.71.0): Mastra reads ten variables when
 * imported (the process's environment is cleared, so all are unset); it adds
 * `providerOptions.mastra.createdAt` (the time) to the user message of every
 * prompt, which the model adapter drops so that the model sees the same
 * conversation on every run; `maxSteps` ends the loop with `""` at the cap;
 * a tool that throws is shown to the model as its bare message. With no
 * storage or memory configured it keeps nothing between questions. Its
 * attempts to write model capabilities into its package folder are denied
 * (no write permission) and it carries on.
 *
 * @module
 */

import { serveAdapter } from "./child_runtime.ts";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { CallArgs, type FrameworkAdapter } from "./adapter.ts";
import { ragbenchModel } from "./ai_sdk_model.ts";

/** The Mastra adapter. */
export const mastraAdapter: FrameworkAdapter = {
  framework: "@mastra/core@1.71.0",
  async run(run) {
    const args = new CallArgs();
    const tools = Object.fromEntries(run.tools.map((spec) => [
      spec.name,
      createTool({
        id: spec.name,
        description: spec.description,
        inputSchema: spec.parameters as never,
        execute: (input: unknown, context?: { agent?: { toolCallId?: string } }) => {
          const id = context?.agent?.toolCallId ?? "";
          return run.tool({ id, name: spec.name, arguments: args.text(id, input) });
        },
      }),
    ]));
    const agent = new Agent({
      id: "ragbench",
      name: "ragbench",
      instructions: run.system,
      // Mastra bundles its own copy of @ai-sdk/provider: the same V4 shape, another type.
      model: ragbenchModel(run, args) as never,
      tools,
    });
    const result = await agent.generate(run.question, {
      maxSteps: run.maxModelCalls,
      abortSignal: run.signal,
    });
    return result.text;
  },
};

if (import.meta.main) await serveAdapter(mastraAdapter);
