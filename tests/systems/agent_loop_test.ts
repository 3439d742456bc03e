import assert from "node:assert/strict";
import type { ChatRequest } from "../../lib/llm/model.ts";
import { TraceRecorder } from "../../lib/trace/trace_recorder.ts";
import type { ModelStep, ToolStep } from "../../lib/types.ts";
import { type AgentLimits, FINAL_ANSWER_PROMPT, runAgentLoop } from "../../systems/agent_loop.ts";
import { agentSearch } from "../../systems/agent_search.ts";
import type { ToolDef } from "../../tools/define_tool.ts";
import { closedBook } from "../../systems/closed_book.ts";
import { brokenTool, fakeSearch, modelOf, question, toolboxOf } from "../support/fixtures.ts";

const LIMITS: AgentLimits = {
  max_steps: 8,
  max_tool_calls: null,
  max_cost_usd: null,
  max_tokens: null,
};
const signal = new AbortController().signal;

/** A model that calls `search` with each query in turn, then answers. */
function searchingModel(queries: string[], answer = "330 metres") {
  const requests: ChatRequest[] = [];
  const model = modelOf((request) => {
    requests.push(structuredClone(request));
    const turn = request.messages.filter((m) => m.role === "assistant").length;
    if (request.tools.length && turn < queries.length) {
      return {
        tool_calls: [{
          id: `c${turn}`,
          name: "search",
          arguments: JSON.stringify({ query: queries[turn] }),
        }],
      };
    }
    return { content: answer };
  });
  return { model, requests };
}

async function run(
  model: ReturnType<typeof modelOf>,
  limits: AgentLimits,
  tools: ToolDef[] = [fakeSearch],
) {
  const recorder = new TraceRecorder(model);
  const session = toolboxOf(tools).session("q1");
  const outcome = await runAgentLoop(
    { question: question("q1", "How tall?"), recorder, tools: session, retriever: null, signal },
    { system: "sys" },
    limits,
  );
  session.close();
  return { outcome, recorder };
}

Deno.test("agent loop: searches, reads the results, answers on its own (no flags)", async () => {
  const { model, requests } = searchingModel(["tokyo", "eiffel"]);
  const { outcome, recorder } = await run(model, LIMITS);
  assert.deepEqual(outcome, {
    answer: "330 metres",
    flags: { best_effort: false, budget_exhausted: false, format_error: false },
  });
  assert.deepEqual(recorder.steps.map((s) => s.type), ["model", "tool", "model", "tool", "model"]);
  const tool = recorder.steps[1] as ToolStep;
  assert.deepEqual(tool.args, { query: "tokyo" });
  assert.equal(tool.result.output, "tokyo: Tokyo Tower was inspired by the Eiffel Tower.");
  const last = requests.at(-1)!;
  assert.deepEqual(last.messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "assistant",
    "tool",
  ]);
  assert.equal(recorder.modelCalls, 3);
  assert.equal(recorder.toolCalls, 2);
  assert.ok(Math.abs(recorder.costUsd! - 3 * 15 / 1e6) < 1e-12);
});

Deno.test("agent loop: max_steps forces a final answer call without tools (best effort)", async () => {
  const { model, requests } = searchingModel(["a", "b", "c", "d", "e"]);
  const { outcome, recorder } = await run(model, { ...LIMITS, max_steps: 3 });
  assert.deepEqual(outcome.flags, {
    best_effort: true,
    budget_exhausted: false,
    format_error: false,
  });
  const models = recorder.steps.filter((s): s is ModelStep => s.type === "model");
  assert.equal(models.length, 3);
  assert.deepEqual(models.map((m) => m.final), [false, false, true]);
  const final = requests.at(-1)!;
  assert.equal(final.tools.length, 0);
  assert.equal(final.messages.at(-1)?.content, FINAL_ANSWER_PROMPT);
});

Deno.test("agent loop: the tool-call cap stops tool use and sets budget_exhausted", async () => {
  const { model } = searchingModel(["a", "b", "c"]);
  const { outcome, recorder } = await run(model, { ...LIMITS, max_tool_calls: 1 });
  assert.deepEqual(outcome.flags, {
    best_effort: true,
    budget_exhausted: true,
    format_error: false,
  });
  assert.equal(recorder.toolCalls, 1);
});

Deno.test("agent loop: a cap reached inside one turn answers the extra calls without running them", async () => {
  const model = modelOf((request) =>
    request.tools.length
      ? {
        tool_calls: [
          { id: "a", name: "search", arguments: '{"query":"eiffel"}' },
          { id: "b", name: "search", arguments: '{"query":"tokyo"}' },
        ],
      }
      : { content: "done" }
  );
  const recorder = new TraceRecorder(model);
  const session = toolboxOf([fakeSearch]).session("q");
  const seen: string[] = [];
  const outcome = await runAgentLoop(
    {
      question: question("q", "?"),
      recorder: new Proxy(recorder, {}),
      retriever: null,
      tools: {
        ...session,
        specs: session.specs,
        execute: (n, a, s) => {
          seen.push(a);
          return session.execute(n, a, s);
        },
      },
      signal,
    },
    { system: "s" },
    { ...LIMITS, max_tool_calls: 1 },
  );
  assert.equal(outcome.answer, "done");
  assert.deepEqual(seen, ['{"query":"eiffel"}']);
  assert.equal(recorder.toolCalls, 1);
});

Deno.test("agent loop: the cost and token caps each stop it with budget_exhausted", async () => {
  for (const limits of [{ ...LIMITS, max_cost_usd: 1e-9 }, { ...LIMITS, max_tokens: 15 }]) {
    const { model } = searchingModel(["a", "b", "c"]);
    const { outcome, recorder } = await run(model, limits);
    assert.deepEqual(outcome.flags, {
      best_effort: true,
      budget_exhausted: true,
      format_error: false,
    });
    assert.equal(recorder.modelCalls, 2, "one turn, then the final answer call");
  }
});

Deno.test("agent loop: a failing or unknown tool is shown to the model, which carries on", async () => {
  const calls = [
    { id: "1", name: "broken", arguments: "{}" },
    { id: "2", name: "serch", arguments: '{"query":"x"}' },
    { id: "3", name: "search", arguments: "{not json" },
  ];
  const requests: ChatRequest[] = [];
  const model = modelOf((request) => {
    requests.push(structuredClone(request));
    const turn = request.messages.filter((m) => m.role === "assistant").length;
    return turn < calls.length ? { tool_calls: [calls[turn]] } : { content: "ok" };
  });
  const { outcome, recorder } = await run(model, LIMITS, [fakeSearch, brokenTool]);
  assert.equal(outcome.answer, "ok");
  const toolMessages = requests.at(-1)!.messages.filter((m) => m.role === "tool").map((m) =>
    m.content
  );
  assert.deepEqual(toolMessages, [
    "Error (execution): The tool failed unexpectedly. Try different arguments or another tool.",
    'Error (unknown_tool): No tool named "serch" — did you mean "search"? Available: search, broken.',
    "Error (invalid_args): Arguments must be a JSON object; could not parse them " +
    "(Expected property name or '}' in JSON at position 1 (line 1 column 2)).",
  ]);
  const broken = recorder.steps[1] as ToolStep;
  assert.equal(broken.result.error?.detail, "Error: secret path /home/me/.key");
  assert.ok(!toolMessages[0].includes("/home/me"), "the model never sees the exception text");
});

Deno.test("agent_search offers its tools; closed_book calls the model once without tools", async () => {
  const { model, requests } = searchingModel(["eiffel"]);
  const recorder = new TraceRecorder(model);
  const session = toolboxOf([fakeSearch]).session("q");
  const options = agentSearch.options.parse({ type: "agent_search" });
  const outcome = await agentSearch.run(options, {
    question: question("q", "How tall?"),
    recorder,
    tools: session,
    retriever: null,
    signal,
  });
  assert.equal(outcome.answer, "330 metres");
  assert.deepEqual(requests[0].tools.map((t) => t.name), ["search"]);

  const closedRequests: ChatRequest[] = [];
  const closedModel = modelOf((r) => {
    closedRequests.push(r);
    return { content: "I think 330 m." };
  });
  const closed = await closedBook.run(closedBook.options.parse({ type: "closed_book" }), {
    question: question("q", "How tall?"),
    recorder: new TraceRecorder(closedModel),
    tools: toolboxOf([]).session("q"),
    retriever: null,
    signal,
  });
  assert.equal(closed.answer, "I think 330 m.");
  assert.equal(closedRequests.length, 1);
  assert.equal(closedRequests[0].tools.length, 0);
});
