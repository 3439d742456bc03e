/**
 * The baseline of `bench_frameworks.ts`: agent_search's loop (model, then the
 * tool calls, until a text reply) run in a framework process with no
 * framework, so that the cost of the process and its line protocol is
 * measured apart from each framework's own.
 *
 * @module
 */

import { serveAdapter } from "../systems/frameworks/child_runtime.ts";
import type { FrameworkAdapter } from "../systems/frameworks/adapter.ts";
import type { ChatMessage } from "../lib/llm/model.ts";

const plain: FrameworkAdapter = {
  framework: "plain@0",
  async run(run) {
    const names = run.tools.map((t) => t.name);
    const messages: ChatMessage[] = [
      { role: "system", content: run.system },
      { role: "user", content: run.question },
    ];
    for (let turn = 0; turn < run.maxModelCalls; turn++) {
      const reply = await run.model(messages, names);
      messages.push({
        role: "assistant",
        content: reply.content,
        ...(reply.tool_calls.length ? { tool_calls: reply.tool_calls } : {}),
      });
      if (reply.tool_calls.length === 0) return reply.content;
      for (const call of reply.tool_calls) {
        messages.push({ role: "tool", tool_call_id: call.id, content: await run.tool(call) });
      }
    }
    return null;
  },
};

if (import.meta.main) await serveAdapter(plain);
