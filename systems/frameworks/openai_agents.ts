/**
 * The OpenAI Agents SDK adapter (`@openai/agents-core`, not the umbrella
 * package, which adds realtime and OpenAI's tracing exporter): an `Agent`
 * run by a `Runner`, with a `Model` object that sends the SDK's input items
 * to ragbench's model. Runs in the framework's own process (see
 * `registry.ts`: the `debug` package lists the whole environment at import,
 * so the process gets unscoped env access over a cleared environment).
 *
 * Facts it relies on (agents-core 0.20.0): tracing is on by default and is
 * turned off here (`setTracingDisabled`, `tracingDisabled`); `maxTurns`
 * throws `MaxTurnsExceededError`; a tool that throws is hidden from the model
 * behind a generic sentence (ragbench's tools never throw); a call of a tool
 * the agent does not have throws `ModelBehaviorError` (the question then
 * ends with a `system` error). The input items carry the model's tool-call
 * ids as `callId` and its arguments as the raw text.
 *
 * @module
 */

import { serveAdapter } from "./child_runtime.ts";
import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  setTracingDisabled,
  type StreamEvent,
  tool,
  Usage,
} from "@openai/agents-core";
import type { ChatMessage } from "../../lib/llm/model.ts";
import {
  type AdapterRun,
  CallArgs,
  flattenText,
  type FrameworkAdapter,
  type ModelReply,
} from "./adapter.ts";
import type { WireToolCall } from "./protocol.ts";

setTracingDisabled(true);

/** The Agents SDK request in ragbench's neutral shape. */
export function neutralMessages(request: ModelRequest, args: CallArgs): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (request.systemInstructions) {
    out.push({ role: "system", content: request.systemInstructions });
  }
  const items: AgentInputItem[] = typeof request.input === "string"
    ? [{ role: "user", content: request.input }]
    : request.input;
  // Function calls join the assistant message they follow, as one reply.
  let open: { text: string | null; calls: WireToolCall[] } | null = null;
  const flush = () => {
    if (!open) return;
    out.push({
      role: "assistant",
      content: open.text,
      ...(open.calls.length ? { tool_calls: open.calls } : {}),
    });
    open = null;
  };
  for (const item of items) {
    if (item.type === "function_call") {
      open ??= { text: null, calls: [] };
      open.calls.push({
        id: item.callId,
        name: item.name,
        arguments: args.text(item.callId, item.arguments),
      });
      continue;
    }
    if (item.type === "function_call_result") {
      flush();
      const output = item.output;
      out.push({
        role: "tool",
        tool_call_id: item.callId,
        content: typeof output === "string" ? output : flattenText([output]),
      });
      continue;
    }
    if (!("role" in item)) continue;
    if (item.role === "assistant") {
      flush();
      const text = flattenText(item.content);
      open = { text: text === "" ? null : text, calls: [] };
      continue;
    }
    flush();
    out.push({
      role: item.role === "system" ? "system" : "user",
      content: flattenText(item.content),
    });
  }
  flush();
  return out;
}

/** ragbench's model as an Agents SDK `Model`. */
function ragbenchModel(run: AdapterRun, args: CallArgs): Model {
  return {
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const offered = request.tools.filter((t) => t.type === "function").map((t) => t.name);
      const reply: ModelReply = await run.model(neutralMessages(request, args), offered);
      args.note(reply);
      const output: AgentOutputItem[] = [];
      if (reply.content !== null || reply.tool_calls.length === 0) {
        output.push({
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: reply.content ?? "" }],
        });
      }
      for (const call of reply.tool_calls) {
        output.push({
          type: "function_call",
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
          status: "completed",
        });
      }
      // ragbench counts tokens and cost itself (the trace's model steps).
      return { usage: new Usage(), output };
    },
    // deno-lint-ignore require-yield
    async *getStreamedResponse(): AsyncIterable<StreamEvent> {
      throw new Error("ragbench's model adapter does not stream");
    },
  };
}

/** The OpenAI Agents SDK adapter. */
export const openaiAgentsAdapter: FrameworkAdapter = {
  framework: "@openai/agents-core@0.20.0",
  async run(run) {
    const args = new CallArgs();
    const tools = run.tools.map((spec) =>
      tool({
        name: spec.name,
        description: spec.description,
        parameters: spec.parameters as never,
        strict: false,
        execute: (_input, _context, details) => {
          const call = details?.toolCall;
          return run.tool({
            id: call?.callId ?? "",
            name: spec.name,
            arguments: call?.arguments ?? JSON.stringify(_input ?? {}),
          });
        },
      })
    );
    const agent = new Agent({
      name: "ragbench",
      instructions: run.system,
      model: ragbenchModel(run, args),
      tools,
    });
    const runner = new Runner({ tracingDisabled: true, traceIncludeSensitiveData: false });
    const result = await runner.run(agent, run.question, {
      maxTurns: run.maxModelCalls,
      signal: run.signal,
    });
    const output = result.finalOutput;
    return typeof output === "string" ? output : output === undefined ? null : String(output);
  },
};

if (import.meta.main) await serveAdapter(openaiAgentsAdapter);
