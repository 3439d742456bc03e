/**
 * The LlamaIndex.TS adapter (`@llamaindex/workflow`): the single-agent
 * workflow `agent({llm, tools, systemPrompt})`, over a `ToolCallLLM` object
 * that sends the messages to ragbench's model. Runs in the framework's own
 * process, which needs no permission at all (see `registry.ts`).
 *
 * Facts it relies on (@llamaindex/workflow 1.1.25, @llamaindex/core
 * 0.6.23): the agent always calls `chat` with `stream: true` and reads the
 * tool calls from the chunks' `options.toolCall`; tool results come back as
 * *user* messages carrying `options.toolResult`; a tool's `call` gets the
 * arguments only, not the call's id (the adapter pairs them with the model's
 * calls in order); the workflow has **no step cap** (its `timeout` is
 * ignored) and cannot be cancelled: breaking out of it leaves it running,
 * and an error thrown inside becomes an unhandled rejection that never
 * settles the run. So the adapter never throws into it: ragbench's budget
 * ends the run with a text reply, and a stopped question's requests are
 * answered in text (`child_runtime.ts`), which ends it. Its process can
 * always be killed.
 *
 * @module
 */

import { serveAdapter } from "./child_runtime.ts";
import { agent } from "@llamaindex/workflow";
import type {
  BaseToolWithCall,
  ChatMessage as LlamaMessage,
  ChatResponseChunk,
  LLMChatParamsStreaming,
  ToolCallLLM,
} from "@llamaindex/core/llms";
import type { ChatMessage } from "../../lib/llm/model.ts";
import {
  type AdapterRun,
  argsText,
  assistantMessage,
  CallArgs,
  flattenText,
  type FrameworkAdapter,
} from "./adapter.ts";
import type { WireToolCall } from "./protocol.ts";

interface LlamaToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** LlamaIndex's messages in ragbench's neutral shape. */
export function neutralMessages(messages: LlamaMessage[], args: CallArgs): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    const content = flattenText(message.content);
    const options = (message.options ?? {}) as {
      toolCall?: LlamaToolCall[];
      toolResult?: { id: string; result: string };
    };
    if (options.toolResult) {
      return { role: "tool", tool_call_id: options.toolResult.id, content };
    }
    if (message.role === "assistant") {
      return assistantMessage(
        content,
        (options.toolCall ?? []).map((c) => ({
          id: c.id,
          name: c.name,
          arguments: args.text(c.id, c.input),
        })),
      );
    }
    return { role: message.role === "system" ? "system" : "user", content };
  });
}

/** ragbench's model as a LlamaIndex `ToolCallLLM` (streaming, as the agent asks). */
function ragbenchLlm(
  run: AdapterRun,
  args: CallArgs,
  calls: PendingCalls,
  fail: (error: Error) => void,
): ToolCallLLM {
  const known = new Set(run.tools.map((t) => t.name));
  const llm = {
    supportToolCall: true,
    metadata: {
      model: "ragbench",
      temperature: 0,
      topP: 1,
      contextWindow: 1_000_000,
      tokenizer: undefined,
      structuredOutput: false,
    },
    async chat(params: LLMChatParamsStreaming) {
      const offered = (params.tools ?? []).map((t) => t.metadata.name);
      const reply = await run.model(neutralMessages(params.messages, args), offered);
      args.note(reply);
      calls.add(reply.tool_calls);
      const unknown = reply.tool_calls.filter((c) => !known.has(c.name)).map((c) => c.name);
      if (unknown.length) {
        // The agent throws on it, as an unhandled rejection that never ends the run: end it here.
        fail(
          new Error(
            `the model called a tool the agent does not have (${
              unknown.join(", ").slice(0, 200)
            }); LlamaIndex's agent cannot go on`,
          ),
        );
      }
      const chunk: ChatResponseChunk = {
        delta: reply.content ?? "",
        raw: null,
        ...(reply.tool_calls.length
          ? {
            options: {
              toolCall: reply.tool_calls.map((c) => ({
                id: c.id,
                name: c.name,
                input: c.arguments,
              })),
            },
          }
          : {}),
      };
      return (async function* () {
        yield chunk;
      })();
    },
    complete() {
      return Promise.reject(new Error("ragbench's model adapter only chats"));
    },
  };
  return llm as unknown as ToolCallLLM;
}

/**
 * The model's tool calls not yet run, so that a tool's `call(input)` — which
 * LlamaIndex gives no call id — is paired with the model's call: the first
 * pending call of that tool with the same arguments, else the first of that
 * tool.
 */
class PendingCalls {
  #pending: WireToolCall[] = [];

  add(calls: readonly WireToolCall[]): void {
    this.#pending.push(...calls);
  }

  take(name: string, input: unknown): WireToolCall {
    const same = this.#pending.findIndex((c) =>
      c.name === name && argsText(input, c.arguments) === c.arguments
    );
    const index = same >= 0 ? same : this.#pending.findIndex((c) => c.name === name);
    if (index < 0) return { id: "", name, arguments: JSON.stringify(input ?? {}) };
    const [call] = this.#pending.splice(index, 1);
    return { ...call, arguments: argsText(input, call.arguments) };
  }
}

/** The LlamaIndex.TS adapter. */
export const llamaindexAdapter: FrameworkAdapter = {
  framework: "@llamaindex/workflow@1.1.25",
  async run(run) {
    const args = new CallArgs();
    const calls = new PendingCalls();
    const tools: BaseToolWithCall[] = run.tools.map((spec) => ({
      metadata: {
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters,
      },
      call: (input: unknown) => run.tool(calls.take(spec.name, input)),
    }));
    let fail: (error: Error) => void = () => {};
    const failed = new Promise<never>((_, reject) => fail = reject);
    const workflow = agent({
      llm: ragbenchLlm(run, args, calls, fail),
      tools,
      systemPrompt: run.system,
    });
    const result = await Promise.race([workflow.run(run.question), failed]);
    return flattenText(result.data.result);
  },
};

if (import.meta.main) await serveAdapter(llamaindexAdapter);
