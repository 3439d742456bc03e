/**
 * ragbench's model as an AI SDK `LanguageModelV4`, shared by the AI SDK and
 * Mastra adapters (Mastra takes AI SDK models). Imports only types from
 * `@ai-sdk/provider`, so neither framework is loaded by the other's adapter.
 *
 * The SDK's prompt is converted to ragbench's neutral messages: text parts
 * joined, tool calls with the model's own argument text, each tool result a
 * tool message. `providerOptions` (where Mastra puts a `createdAt` time
 * stamp) and ids are dropped, so the model sees the same conversation on
 * every run.
 *
 * @module
 */

import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from "@ai-sdk/provider";
import type { ChatMessage } from "../../lib/llm/model.ts";
import { type AdapterRun, assistantMessage, type CallArgs, type ModelReply } from "./adapter.ts";
import type { WireToolCall } from "./protocol.ts";

/** The AI SDK prompt in ragbench's neutral shape. */
export function neutralMessages(prompt: LanguageModelV4Prompt, args: CallArgs): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        messages.push({ role: "system", content: message.content });
        break;
      case "user":
        messages.push({
          role: "user",
          content: message.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
        });
        break;
      case "assistant": {
        let text = "";
        const calls: WireToolCall[] = [];
        for (const part of message.content) {
          if (part.type === "text") text += part.text;
          if (part.type === "tool-call") {
            calls.push({
              id: part.toolCallId,
              name: part.toolName,
              arguments: args.text(part.toolCallId, part.input),
            });
          }
        }
        messages.push(assistantMessage(text, calls));
        break;
      }
      case "tool":
        for (const part of message.content) {
          if (part.type !== "tool-result") continue;
          messages.push({
            role: "tool",
            tool_call_id: part.toolCallId,
            content: outputText(part.output),
          });
        }
        break;
    }
  }
  return messages;
}

function outputText(output: LanguageModelV4ToolResultOutput): string {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return typeof output.value === "string" ? output.value : JSON.stringify(output.value);
    case "execution-denied":
      return output.reason ?? "execution denied";
    case "content":
      return output.value.map((p) => (p.type === "text" ? p.text : "")).join("");
  }
}

/** ragbench's model as a `LanguageModelV4` (the AI SDK's, and Mastra's). */
export function ragbenchModel(run: AdapterRun, args: CallArgs): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "ragbench",
    modelId: "ragbench",
    supportedUrls: {},
    async doGenerate(options: LanguageModelV4CallOptions) {
      const offered = options.toolChoice?.type === "none"
        ? []
        : (options.tools ?? []).filter((t) => t.type === "function").map((t) => t.name);
      const reply: ModelReply = await run.model(neutralMessages(options.prompt, args), offered);
      args.note(reply);
      const content: LanguageModelV4Content[] = [];
      if (reply.content) content.push({ type: "text", text: reply.content });
      for (const call of reply.tool_calls) {
        content.push({
          type: "tool-call",
          toolCallId: call.id,
          toolName: call.name,
          input: call.arguments,
        });
      }
      return {
        content,
        finishReason: {
          unified: reply.tool_calls.length ? "tool-calls" : "stop",
          raw: undefined,
        },
        // ragbench counts tokens and cost itself (the trace's model steps).
        usage: {
          inputTokens: {
            total: undefined,
            noCache: undefined,
            cacheRead: undefined,
            cacheWrite: undefined,
          },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        warnings: [],
      };
    },
    doStream() {
      return Promise.reject(new Error("ragbench's model adapter does not stream"));
    },
  };
}
