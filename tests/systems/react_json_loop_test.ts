import assert from "node:assert/strict";
import type { ChatRequest } from "../../lib/llm/model.ts";
import { createMockModel } from "../../lib/llm/mock_model.ts";
import { MOCK_POLICIES } from "../../systems/registry.ts";
import { parseMockScript } from "../../lib/llm/mock_script_load.ts";
import { INVALID_ACTION_PREFIX, REACT_JSON_HEADER } from "../../lib/llm/react_json.ts";
import { TraceRecorder } from "../../lib/trace/trace_recorder.ts";
import type { Model } from "../../lib/llm/model.ts";
import type { ModelStep, ToolStep } from "../../lib/types.ts";
import type { AgentLimits } from "../../systems/agent_loop.ts";
import { agentSearch } from "../../systems/agent_search.ts";
import { MAX_ECHOED_REPLY_CHARS, runReactJsonLoop } from "../../systems/react_json_loop.ts";
import { fakeSearch, modelOf, question, toolboxOf } from "../support/fixtures.ts";

const LIMITS: AgentLimits = {
  max_steps: 8,
  max_tool_calls: null,
  max_cost_usd: null,
  max_tokens: null,
};
const signal = new AbortController().signal;

/** A model giving `replies` in turn (the last one repeated), recording each request. */
function scriptedReplies(replies: string[]) {
  const requests: ChatRequest[] = [];
  const model = modelOf((request) => {
    requests.push(structuredClone(request));
    const turn = request.messages.filter((m) => m.role === "assistant").length;
    return { content: replies[Math.min(turn, replies.length - 1)] };
  });
  return { model, requests };
}

async function run(model: Model, limits: AgentLimits = LIMITS) {
  const recorder = new TraceRecorder(model);
  const session = toolboxOf([fakeSearch]).session("q1");
  try {
    const outcome = await runReactJsonLoop(
      { question: question("q1", "How tall?"), recorder, tools: session, retriever: null, signal },
      { system: "Answer questions." },
      limits,
    );
    return { outcome, recorder };
  } finally {
    session.close();
  }
}

Deno.test("react_json loop: a malformed reply becomes an observation, the model recovers and answers", async () => {
  const { model, requests } = scriptedReplies([
    "Let me search for that.",
    '{"tool": "search", "args": {"query": "eiffel"}}',
    '{"answer": "330 metres [eiffel]"}',
  ]);
  const { outcome, recorder } = await run(model);
  assert.deepEqual(outcome, {
    answer: "330 metres [eiffel]",
    flags: { best_effort: false, budget_exhausted: false, format_error: false },
  });
  assert.equal(recorder.formatErrors, 1);
  assert.deepEqual(recorder.steps.map((s) => s.type), ["model", "model", "tool", "model"]);
  assert.deepEqual((recorder.steps[2] as ToolStep).args, { query: "eiffel" });
  assert.ok(requests.every((r) => r.tools.length === 0), "the model is called with no tools");
  assert.match(
    requests[0].messages[0].content ?? "",
    new RegExp(REACT_JSON_HEADER.replace(/[()]/g, "\\$&")),
  );
  const second = requests[1].messages.at(-1)!;
  assert.equal(second.role, "user");
  assert.ok(second.content!.startsWith(INVALID_ACTION_PREFIX), second.content!);
  assert.match(
    requests[2].messages.at(-1)!.content!,
    /^Observation: eiffel: The Eiffel Tower is 330 metres tall\./,
  );
});

Deno.test("react_json loop: an unknown tool is a format error and is never executed", async () => {
  const { model } = scriptedReplies(['{"tool": "constructor", "args": {}}', '{"answer": "done"}']);
  const { outcome, recorder } = await run(model);
  assert.equal(outcome.answer, "done");
  assert.equal(recorder.toolCalls, 0);
  assert.equal(recorder.formatErrors, 1);
});

Deno.test("react_json loop: no valid answer even on the final call flags format_error with no answer", async () => {
  const { model, requests } = scriptedReplies(["not json at all"]);
  const { outcome, recorder } = await run(model, { ...LIMITS, max_steps: 3 });
  assert.deepEqual(outcome, {
    answer: null,
    flags: { best_effort: true, budget_exhausted: false, format_error: true },
  });
  assert.equal(recorder.formatErrors, 3, "two turns and the final call");
  const models = recorder.steps.filter((s): s is ModelStep => s.type === "model");
  assert.deepEqual(models.map((m) => m.final), [false, false, true]);
  assert.match(requests.at(-1)!.messages.at(-1)!.content!, /^Stop using tools now/);
});

Deno.test("react_json loop: a 5 MB reply is recorded whole but cut in the conversation sent back", async () => {
  const huge = "x".repeat(5_000_000);
  const { model, requests } = scriptedReplies([huge, '{"answer": "ok"}']);
  const { outcome, recorder } = await run(model);
  assert.equal(outcome.answer, "ok");
  assert.equal((recorder.steps[0] as ModelStep).content?.length, 5_000_000);
  const echoed = requests[1].messages.find((m) => m.role === "assistant")!.content!;
  assert.ok(echoed.length < MAX_ECHOED_REPLY_CHARS + 100, String(echoed.length));
});

Deno.test("react_json loop: the tool-call cap stops tool use and sets budget_exhausted", async () => {
  const { model } = scriptedReplies(['{"tool": "search", "args": {"query": "eiffel"}}']);
  const { outcome, recorder } = await run(model, { ...LIMITS, max_tool_calls: 1 });
  assert.equal(recorder.toolCalls, 1);
  assert.deepEqual(outcome.flags, {
    best_effort: true,
    budget_exhausted: true,
    format_error: true,
  });
});

Deno.test("agent_search with agent_mode react_json on the mock: scripted turns become JSON actions, a raw turn is a recoverable format error", async () => {
  const script = parseMockScript(
    `"How tall":
  - {raw: "Thinking... {tool: search}"}
  - {call: search, args: {query: eiffel}}
  - {answer: "330 metres [eiffel]"}
`,
    "mock.yaml",
  );
  const runOnce = async () => {
    const recorder = new TraceRecorder(
      createMockModel(script, "gpt-4o-mini", { input_per_mtok: 1, output_per_mtok: 1 }, {
        policies: MOCK_POLICIES,
      }),
    );
    const session = toolboxOf([fakeSearch]).session("q");
    const options = agentSearch.options.parse({ type: "agent_search", agent_mode: "react_json" });
    const outcome = await agentSearch.run(options, {
      question: question("q", "How tall is it?"),
      recorder,
      tools: session,
      retriever: null,
      signal,
    });
    session.close();
    return { outcome, recorder };
  };
  const { outcome, recorder } = await runOnce();
  assert.equal(outcome.answer, "330 metres [eiffel]");
  assert.equal(recorder.formatErrors, 1);
  const contents = recorder.steps.filter((s): s is ModelStep => s.type === "model").map((s) =>
    s.content
  );
  assert.deepEqual(contents, [
    "Thinking... {tool: search}",
    '{"tool":"search","args":{"query":"eiffel"}}',
    '{"answer":"330 metres [eiffel]"}',
  ]);
  assert.equal((recorder.steps[2] as ToolStep).result.error, null);
  const again = await runOnce();
  assert.deepEqual(
    again.recorder.steps.map((s) => s.type === "model" ? [s.content, s.usage] : s.type),
    recorder.steps.map((s) => s.type === "model" ? [s.content, s.usage] : s.type),
    "deterministic",
  );
});

Deno.test("the mock in react_json mode follows its default policy for an unscripted question", async () => {
  const recorder = new TraceRecorder(
    createMockModel({ entries: [] }, "m", { input_per_mtok: 0, output_per_mtok: 0 }, {
      policies: MOCK_POLICIES,
    }),
  );
  const session = toolboxOf([fakeSearch]).session("q");
  const outcome = await runReactJsonLoop(
    { question: question("q", "eiffel height"), recorder, tools: session, retriever: null, signal },
    { system: "Answer." },
    LIMITS,
  );
  session.close();
  assert.equal(recorder.formatErrors, 0);
  assert.equal(recorder.toolCalls, 1);
  assert.match(
    outcome.answer ?? "",
    /^From the documents: eiffel: The Eiffel Tower is 330 metres tall\./,
  );
});
