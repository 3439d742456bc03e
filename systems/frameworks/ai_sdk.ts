/**
 * The Vercel AI SDK adapter (npm `ai`): `generateText` with tools and a step
 * condition, over a `LanguageModelV4` object that sends the SDK's prompt to
 * ragbench's model. Runs in the framework's own process (`deno run` of this
 * file; see `registry.ts` for its permissions).
 *
 * Facts it relies on (ai 7.0.173): `generateText` stops after one step
 * unless `stopWhen` says otherwise; at its cap it returns `""`; it calls
 * `doGenerate` (never `doStream`) and retries a failed call twice unless
 * `maxRetries: 0`; a tool's string result comes back as an output of type
 * `text`; tool calls run concurrently unless `toolCallConcurrency: 1`.
 * Telemetry is off unless asked for.
 *
 * @module
 */

import { serveAdapter } from "./child_runtime.ts";
import { generateText, isStepCount, jsonSchema, tool, type ToolSet } from "ai";
import { CallArgs, type FrameworkAdapter } from "./adapter.ts";
import { ragbenchModel } from "./ai_sdk_model.ts";

/** The AI SDK adapter. */
export const aiSdkAdapter: FrameworkAdapter = {
  framework: "ai@7.0.173",
  async run(run) {
    const args = new CallArgs();
    const tools: ToolSet = {};
    for (const spec of run.tools) {
      tools[spec.name] = tool({
        description: spec.description,
        inputSchema: jsonSchema(spec.parameters),
        execute: (_input, options) =>
          run.tool({
            id: options.toolCallId,
            name: spec.name,
            arguments: args.text(options.toolCallId, _input),
          }),
      });
    }
    const result = await generateText({
      model: ragbenchModel(run, args),
      system: run.system,
      prompt: run.question,
      tools,
      stopWhen: isStepCount(run.maxModelCalls),
      toolCallConcurrency: 1,
      maxRetries: 0,
      abortSignal: run.signal,
    });
    return result.text;
  },
};

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

if (import.meta.main) await serveAdapter(aiSdkAdapter);
