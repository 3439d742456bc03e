/**
 * The LangGraph adapter: langchain's `createAgent` (the maintained successor
 * of LangGraph's deprecated prebuilt `createReactAgent`; it builds a LangGraph
 * graph), over a `BaseChatModel` that sends the messages to ragbench's model.
 * Runs in the framework's own process (see `registry.ts`).
 *
 * Facts it relies on (langchain 1.5.14, @langchain/core 1.4.0): the agent
 * calls `bindTools` and then `_generate` with the tools in `options.tools`;
 * a system prompt arrives as content blocks, not a string; every message
 * carries a random id (never passed on); a tool that throws makes `invoke`
 * reject (ragbench's tools never throw); `recursionLimit` counts graph steps
 * (a model node and a tools node per turn) and throws when reached. The
 * first `invoke` builds a LangSmith client (it reads the home folder);
 * tracing stays off, since the process's environment is cleared.
 *
 * @module
 */

import { serveAdapter } from "./child_runtime.ts";
import { createAgent } from "langchain";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
} from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import type { ChatMessage } from "../../lib/llm/model.ts";
import {
  type AdapterRun,
  argsObject,
  assistantMessage,
  CallArgs,
  flattenText,
  type FrameworkAdapter,
} from "./adapter.ts";

/** LangChain messages in ragbench's neutral shape (ids and metadata dropped). */
export function neutralMessages(messages: BaseMessage[], args: CallArgs): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    const content = flattenText(message.content);
    switch (message.getType()) {
      case "system":
        return { role: "system", content };
      case "ai": {
        const ai = message as AIMessage;
        return assistantMessage(
          content,
          (ai.tool_calls ?? []).map((c) => ({
            id: c.id ?? "",
            name: c.name,
            arguments: args.text(c.id ?? "", c.args),
          })),
        );
      }
      case "tool":
        return {
          role: "tool",
          tool_call_id: (message as BaseMessage & { tool_call_id: string }).tool_call_id,
          content,
        };
      default:
        return { role: "user", content };
    }
  });
}

/** The name of a tool as LangChain binds it (a tool object or an OpenAI-style definition). */
function toolName(bound: unknown): string {
  if (bound && typeof bound === "object") {
    const t = bound as { name?: unknown; function?: { name?: unknown } };
    if (typeof t.name === "string") return t.name;
    if (typeof t.function?.name === "string") return t.function.name;
  }
  return "";
}

type CallOptions = BaseChatModelCallOptions & { tools?: unknown[] };

/** ragbench's model as a LangChain chat model. */
class RagbenchChatModel extends BaseChatModel<CallOptions> {
  readonly #run: AdapterRun;
  readonly #args: CallArgs;

  constructor(run: AdapterRun, args: CallArgs) {
    super({});
    this.#run = run;
    this.#args = args;
  }

  _llmType(): string {
    return "ragbench";
  }

  override bindTools(tools: unknown[], kwargs?: Partial<CallOptions>) {
    return this.withConfig({ ...kwargs, tools } as Partial<CallOptions>);
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
  ): Promise<ChatResult> {
    const offered = ((options as CallOptions).tools ?? []).map(toolName);
    const reply = await this.#run.model(neutralMessages(messages, this.#args), offered);
    this.#args.note(reply);
    const text = reply.content ?? "";
    const message = new AIMessage({
      content: text,
      tool_calls: reply.tool_calls.map((c) => ({
        id: c.id,
        name: c.name,
        args: argsObject(c.arguments),
        type: "tool_call" as const,
      })),
    });
    return { generations: [{ text, message }] };
  }
}

/** The LangGraph (langchain createAgent) adapter. */
export const langgraphAdapter: FrameworkAdapter = {
  framework: "langchain@1.5.14",
  async run(run) {
    const args = new CallArgs();
    const tools = run.tools.map((spec) =>
      tool(
        (input: unknown, config: { toolCall?: { id?: string } }) => {
          const id = config.toolCall?.id ?? "";
          return run.tool({ id, name: spec.name, arguments: args.text(id, input) });
        },
        { name: spec.name, description: spec.description, schema: spec.parameters },
      )
    );
    const agent = createAgent({
      model: new RagbenchChatModel(run, args),
      tools,
      systemPrompt: run.system,
    });
    const result = await agent.invoke(
      { messages: [{ role: "user", content: run.question }] },
      // Two graph steps a turn (model, tools), and the last model call.
      { recursionLimit: 2 * run.maxModelCalls + 1, signal: run.signal },
    );
    const last = result.messages.at(-1);
    return last ? flattenText(last.content) : null;
  },
};

if (import.meta.main) await serveAdapter(langgraphAdapter);
