import assert from "node:assert/strict";
import type { ChatRequest, Model } from "../../lib/llm/model.ts";
import { createMockModel } from "../../lib/llm/mock_model.ts";
import { MOCK_POLICIES } from "../../systems/registry.ts";
import { parseMockScript } from "../../lib/llm/mock_script_load.ts";
import { TraceRecorder } from "../../lib/trace/trace_recorder.ts";
import type { ToolStep } from "../../lib/types.ts";
import { codeAgent, codeAgentSchema, programWallTimeoutS } from "../../systems/code_agent.ts";
import { CODE_FINAL_PROMPT, extractProgram } from "../../systems/code_program.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { brokenTool, fakeSearch, question, toolboxOf } from "../support/fixtures.ts";

const PRICING = { input_per_mtok: 1, output_per_mtok: 1 };

/** The mock model over `yaml`, keeping a copy of every request. */
function scripted(yaml: string) {
  const mock = createMockModel(parseMockScript(yaml, "mock.yaml"), "m", PRICING, {
    policies: MOCK_POLICIES,
  });
  const requests: ChatRequest[] = [];
  const model: Model = {
    ...mock,
    chat(request, signal) {
      requests.push(structuredClone(request));
      return mock.chat(request, signal);
    },
  };
  return { model, requests };
}

async function run(
  model: Model,
  options: Record<string, unknown> = {},
  signal = new AbortController().signal,
) {
  const recorder = new TraceRecorder(model);
  const session = toolboxOf([fakeSearch, brokenTool]).session("q1");
  try {
    const outcome = await codeAgent.run(
      codeAgentSchema.parse({ type: "code_agent", name: "c", ...options }),
      {
        question: question("q1", "How tall is the tower?"),
        recorder,
        tools: session,
        retriever: null,
        signal,
      },
    );
    return { outcome, recorder };
  } finally {
    session.close();
  }
}

const lastUser = (r: ChatRequest) => r.messages.findLast((m) => m.role === "user")?.content ?? "";

Deno.test("code_agent is registered, takes a tools: list and always has search", () => {
  assert.equal(SYSTEMS.get("code_agent"), codeAgent);
  assert.equal(codeAgent.acceptsTools, true);
  assert.deepEqual(codeAgent.alwaysTools, ["search"]);
  assert.throws(() => codeAgentSchema.parse({ type: "code_agent", memory_mb: 1 }));
  assert.throws(() => codeAgentSchema.parse({ type: "code_agent", max_step: 3 }));
  assert.equal(codeAgentSchema.parse({ type: "code_agent" }).program_timeout_s, 5);
});

Deno.test("code_agent: the backstop for a waiting program is 60 s, or ten times a larger CPU limit, or as given", () => {
  const wall = (options: Record<string, unknown>) =>
    programWallTimeoutS(codeAgentSchema.parse({ type: "code_agent", ...options }));
  assert.equal(wall({}), 60);
  assert.equal(wall({ program_timeout_s: 0.5 }), 60);
  assert.equal(wall({ program_timeout_s: 30 }), 300);
  assert.equal(wall({ program_timeout_s: 5, program_wall_timeout_s: 5 }), 5);
  assert.equal(wall({ program_timeout_s: 5, program_wall_timeout_s: 900 }), 900);
  assert.throws(
    () => codeAgentSchema.parse({ type: "code_agent", program_wall_timeout_s: 4.9 }),
    /program_wall_timeout_s[\s\S]*must be at least program_timeout_s/,
  );
});

Deno.test("code_agent: each tool call of a program is a tool step; the answer ends the question", async () => {
  const { model, requests } = scripted(`
"tower":
  - {call: search, args: {query: tokyo}}
  - {call: search, args: {query: eiffel tower}}
  - {answer: "330 metres [eiffel]"}
`);
  const { outcome, recorder } = await run(model);
  assert.deepEqual(outcome, {
    answer: "330 metres [eiffel]",
    flags: { best_effort: false, budget_exhausted: false, format_error: false },
  });
  assert.equal(recorder.formatErrors, 0);
  assert.deepEqual(recorder.steps.map((s) => s.type), ["model", "tool", "tool"]);
  const tools = recorder.steps.filter((s): s is ToolStep => s.type === "tool");
  assert.deepEqual(tools.map((s) => s.args), [{ query: "tokyo" }, { query: "eiffel tower" }]);
  assert.match(tools[1].result.output, /^eiffel: The Eiffel Tower is 330 metres tall\./);
  assert.deepEqual(tools.map((s) => s.result.error), [null, null]);
  // The model was told the program API and no function-calling tools.
  assert.deepEqual(requests[0].tools, []);
  assert.match(requests[0].messages[0].content ?? "", /Tool functions: search, broken\n/);
});

Deno.test("code_agent: a syntax error, an exception and a missing final_answer come back as observations", async () => {
  const { model, requests } = scripted(`
"tower":
  - {code: "const = ;"}
  - {code: "await broken({}); null.x;"}
  - {code: "print(await search({query: 'eiffel'}))"}
  - {code: "final_answer('330 metres')"}
`);
  const { outcome, recorder } = await run(model);
  assert.equal(outcome.answer, "330 metres");
  assert.equal(outcome.flags.format_error, false);
  assert.equal(recorder.formatErrors, 3);
  assert.equal(requests.length, 4);
  assert.match(lastUser(requests[1]), /^The program did not compile: SyntaxError: /);
  assert.match(lastUser(requests[2]), /^The program threw: TypeError: .*null/);
  assert.match(
    lastUser(requests[3]),
    /^The program ended without calling final_answer\(text\)\.\nPrinted:\neiffel: The Eiffel/,
  );
  // The failing tool's error reached the program as text, and is a tool step.
  const broken = recorder.steps.find((s): s is ToolStep =>
    s.type === "tool" && s.tool === "broken"
  );
  assert.equal(broken?.result.error?.kind, "execution");
});

Deno.test("code_agent: a final_answer that cannot become text is refused with a message; a 3 MB one is kept cut and flagged", async () => {
  const { model, requests } = scripted(`
"tower":
  - {code: "final_answer({toJSON() { throw new Error('no JSON for you') }})"}
  - {code: "final_answer(new Proxy({}, {get() { throw new Error('trap') }}))"}
  - {code: "final_answer()"}
  - {code: "final_answer('330 metres ' + 'x'.repeat(3000000))"}
`);
  const { outcome, recorder } = await run(model);
  assert.equal(recorder.formatErrors, 3);
  assert.match(
    lastUser(requests[1]),
    /^The answer was refused: final_answer could not turn its value into text \(Error: no JSON for you\)\. Pass the answer as text: final_answer\(text\)\.\n/,
  );
  assert.match(lastUser(requests[2]), /^The answer was refused: .*\(Error: trap\)/);
  assert.match(
    lastUser(requests[3]),
    /^The answer was refused: final_answer\(\) was called without a value/,
  );
  assert.equal(outcome.answer?.length, 100_000);
  assert.ok(outcome.answer?.startsWith("330 metres xxx"));
  assert.deepEqual(outcome.flags, {
    best_effort: false,
    budget_exhausted: false,
    format_error: false,
    answer_truncated: true,
  });
});

Deno.test("code_agent: at max_steps the last program must answer; one that never does is flagged format_error", async () => {
  const { model, requests } = scripted(`
"tower":
  - {code: "print(1)"}
  - {answer: "330 metres"}
`);
  const late = await run(model, { max_steps: 2 });
  assert.equal(late.outcome.answer, "330 metres");
  assert.deepEqual(late.outcome.flags, {
    best_effort: true,
    budget_exhausted: false,
    format_error: false,
  });
  assert.equal(late.recorder.formatErrors, 1);
  assert.equal(lastUser(requests.at(-1)!), CODE_FINAL_PROMPT);

  const never = scripted(`
"tower":
  - {code: "print(1)"}
  - {code: "print(2)"}
  - {code: "no program here"}
`);
  const { outcome, recorder } = await run(never.model, { max_steps: 3 });
  assert.equal(outcome.answer, null);
  assert.deepEqual(outcome.flags, {
    best_effort: true,
    budget_exhausted: false,
    format_error: true,
  });
  assert.equal(recorder.formatErrors, 3);
});

Deno.test("code_agent: the tool-call cap stops tool functions and flags budget_exhausted", async () => {
  const { model } = scripted(`
"tower":
  - {code: "for (let i = 0; i < 5; i++) print(await search({query: 'eiffel ' + i}))"}
`);
  const { outcome, recorder } = await run(model, { max_tool_calls: 2 });
  assert.equal(recorder.toolCalls, 2);
  assert.deepEqual(outcome.flags, {
    best_effort: true,
    budget_exhausted: true,
    format_error: false,
  });
});

Deno.test("code_agent: the question timeout holds against a spinning program", async () => {
  const { model, requests } = scripted(`
"tower":
  - {code: "while (true) {}"}
`);
  const started = performance.now();
  await assert.rejects(
    run(model, { program_timeout_s: 20 }, AbortSignal.timeout(500)),
    (error: unknown) => error instanceof DOMException && error.name === "TimeoutError",
  );
  assert.ok(performance.now() - started >= 450);
  // The question's signal stopped the program, not the program's own 20 s limit.
  assert.match(
    lastUser(requests[1]),
    /^The program failed \(cancelled\): The question was stopped\./,
  );
});

Deno.test("code_agent: a program in a ```js block, an untagged block or a bare reply is found", () => {
  assert.deepEqual(extractProgram("Plan:\n```python\nx\n```\n```js\nfinal_answer(1)\n```"), {
    program: "final_answer(1)",
  });
  assert.deepEqual(extractProgram("```\nprint(1)\n```"), { program: "print(1)" });
  assert.deepEqual(extractProgram("final_answer('x')"), { program: "final_answer('x')" });
  assert.deepEqual(extractProgram("```JavaScript\nlet a = 1;"), { program: "let a = 1;" });
  assert.match((extractProgram("```python\nx\n```") as { problem: string }).problem, /no ```js/);
  assert.match((extractProgram("  ") as { problem: string }).problem, /empty/);
  assert.match(
    (extractProgram("x".repeat(200_000)) as { problem: string }).problem,
    /200000 characters long; the limit is 100000/,
  );
});
