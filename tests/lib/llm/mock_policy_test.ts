import assert from "node:assert/strict";
import { codeAgentPrompt } from "../../../systems/code_program.ts";
import { groundedMessages } from "../../../lib/llm/grounded_prompt.ts";
import { createMockModel } from "../../../lib/llm/mock_model.ts";
import type { MockPolicy } from "../../../lib/llm/mock_policy.ts";
import { parseMockScript } from "../../../lib/llm/mock_script_load.ts";
import { type ChatRequest, ModelCallError } from "../../../lib/llm/model.ts";
import { MOCK_POLICIES, mockPoliciesOf, SYSTEMS } from "../../../systems/registry.ts";
import { defineSystem } from "../../../systems/system.ts";
import { systemBaseSchema } from "../../../lib/config/schema.ts";

const PRICING = { input_per_mtok: 0, output_per_mtok: 0 };
const signal = new AbortController().signal;
const SCRIPT = parseMockScript(
  `"tower that inspired":\n  - {call: search, args: {query: Tokyo Tower}}\n  - {answer: "330 m"}\n  - {recall: "About 300 m."}\n`,
  "mock.yaml",
);
const QUESTION = "Which tower that inspired Tokyo Tower?";
const spec = { name: "search", description: "the search tool", parameters: {} };

Deno.test("the mock answers by the request's protocol, never by what its prompt looks like", async () => {
  const model = createMockModel(SCRIPT, "m", PRICING, { policies: MOCK_POLICIES });
  const codePrompt = codeAgentPrompt([spec], "Answer questions.");
  const asCode: ChatRequest = {
    messages: [{ role: "system", content: codePrompt }, { role: "user", content: QUESTION }],
    tools: [],
    protocol: "code",
  };
  assert.match((await model.chat(asCode, signal)).content!, /^```js\nawait search\(/);
  // The same code agent's prompt with no protocol is a plain-text request: the closed-book answer.
  const { protocol: _code, ...plain } = asCode;
  assert.equal((await model.chat(plain, signal)).content, "About 300 m.");
  // A grounded prompt sent as function calling is answered as one too: no passage is read.
  const grounded = groundedMessages(QUESTION, [{ doc_id: "d", passage_id: "d#0", text: "330 m" }]);
  assert.equal(
    (await model.chat({ messages: grounded, tools: [] }, signal)).content,
    "About 300 m.",
  );
  assert.equal(
    (await model.chat({ messages: grounded, tools: [], protocol: "grounded" }, signal)).content,
    "330 m",
  );
});

Deno.test("a request of a protocol no policy answers is a failed model call that names it", async () => {
  const model = createMockModel(SCRIPT, "m", PRICING);
  await assert.rejects(
    model.chat(
      { messages: [{ role: "user", content: QUESTION }], tools: [], protocol: "code" },
      signal,
    ),
    (error) =>
      error instanceof ModelCallError &&
      /no policy for the reply protocol "code".*SystemDef\.mock/.test(error.message),
  );
});

Deno.test("every protocol a system sends has its policy declared by that system, once", () => {
  assert.deepEqual([...MOCK_POLICIES.keys()].sort(), ["code", "grounded", "react_json"]);
  for (const [protocol, policy] of MOCK_POLICIES) assert.equal(policy.protocol, protocol);
  assert.ok(SYSTEMS.get("rag")!.mock!.some((p) => p.protocol === "grounded"));
  assert.ok(SYSTEMS.get("code_agent")!.mock!.some((p) => p.protocol === "code"));
  for (const type of ["agent_search", "grep_agent"]) {
    assert.ok(SYSTEMS.get(type)!.mock!.some((p) => p.protocol === "react_json"), type);
  }
});

Deno.test("two systems declaring different policies for one protocol, or one for tools, are refused", () => {
  const policy = (protocol: string): MockPolicy => ({
    protocol,
    reply: () => ({ content: "x", tool_calls: [] }),
  });
  const system = (type: string, mock: MockPolicy[]) =>
    defineSystem({
      type,
      description: "",
      acceptsTools: false,
      alwaysTools: [],
      options: systemBaseSchema,
      mock,
      run: () =>
        Promise.resolve({
          answer: null,
          flags: { best_effort: false, budget_exhausted: false, format_error: false },
        }),
    });
  const shared = policy("p");
  assert.equal(mockPoliciesOf([system("a", [shared]), system("b", [shared])]).get("p"), shared);
  assert.throws(
    () => mockPoliciesOf([system("a", [policy("p")]), system("b", [policy("p")])]),
    /system type "b" declares a second mock policy for the protocol "p"/,
  );
  assert.throws(
    () => mockPoliciesOf([system("a", [policy("tools")])]),
    /"tools", which the mock answers itself/,
  );
});
