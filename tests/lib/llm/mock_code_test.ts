import assert from "node:assert/strict";
import { CODE_AGENT_MARKER, codeFunctionNames } from "../../../lib/llm/code_prompt.ts";
import type { ChatMessage } from "../../../lib/llm/model.ts";
import { createMockModel } from "../../../lib/llm/mock_model.ts";
import { parseMockScript } from "../../../lib/llm/mock_script_load.ts";
import { codeAgentPrompt } from "../../../systems/code_program.ts";
import { MOCK_POLICIES } from "../../../systems/registry.ts";

const SCRIPT = parseMockScript(
  `
"tower that inspired":
  - {call: search, args: {query: Tokyo Tower design}}
  - {call: calculator, args: {expression: "330 + 1"}}
  - {answer: "331 metres", without: {calculator: "About 330 metres."}}
"written program":
  - {code: "print(1)"}
  - {code: "final_answer('two')"}
  - {answer: "after the code"}
`,
  "mock.yaml",
);
const model = createMockModel(SCRIPT, "m", { input_per_mtok: 1, output_per_mtok: 1 }, {
  policies: MOCK_POLICIES,
});
const signal = new AbortController().signal;
const spec = (name: string) => ({ name, description: `the ${name} tool`, parameters: {} });

async function reply(question: string, tools: string[], turn = 0): Promise<string | null> {
  const history: ChatMessage[] = [];
  for (let i = 0; i < turn; i++) {
    history.push({ role: "assistant", content: "```js\nprint(0)\n```" }, {
      role: "user",
      content: "The program ended without calling final_answer(text).",
    });
  }
  const response = await model.chat({
    messages: [
      { role: "system", content: codeAgentPrompt(tools.map(spec), "Answer questions.") },
      { role: "user", content: question },
      ...history,
    ],
    tools: [],
    protocol: "code",
  }, signal);
  assert.deepEqual(response.tool_calls, []);
  return response.content;
}

Deno.test("code prompt: carries the marker and lists the tool functions the mock reads back", () => {
  const prompt = codeAgentPrompt([spec("search"), spec("calculator"), spec("delete")], "x");
  assert.ok(prompt.includes(CODE_AGENT_MARKER));
  assert.deepEqual(codeFunctionNames(prompt), ["search", "calculator"]);
  assert.deepEqual(codeFunctionNames(codeAgentPrompt([], "x")), []);
});

Deno.test("mock code: an entry's calls and answer become one program, skipping tools not offered", async () => {
  const q = "How tall is the tower that inspired Tokyo Tower?";
  assert.equal(
    await reply(q, ["search", "calculator"]),
    '```js\nawait search({"query":"Tokyo Tower design"});\n' +
      'await calculator({"expression":"330 + 1"});\nfinal_answer("331 metres");\n```',
  );
  assert.equal(
    await reply(q, ["search"]),
    '```js\nawait search({"query":"Tokyo Tower design"});\nfinal_answer("About 330 metres.");\n```',
  );
  assert.equal(await reply(q, ["search"], 1), '```js\nfinal_answer("About 330 metres.");\n```');
});

Deno.test("mock code: code turns are sent in order, then the answer", async () => {
  const q = "Run the written program";
  assert.equal(await reply(q, ["search"], 0), "```js\nprint(1)\n```");
  assert.equal(await reply(q, ["search"], 1), "```js\nfinal_answer('two')\n```");
  assert.equal(await reply(q, ["search"], 2), '```js\nfinal_answer("after the code");\n```');
});

Deno.test("mock code: an unscripted question searches for its text and quotes the result", async () => {
  assert.equal(
    await reply("Who built it?", ["search"]),
    '```js\nconst found = await search({"query":"Who built it?"});\n' +
      'final_answer("From the documents: " + found.replace(/\\s+/g, " ").trim().slice(0, 300));\n```',
  );
  assert.equal(await reply("Who built it?", []), '```js\nfinal_answer("I don\'t know.");\n```');
});

Deno.test("mock code: a function-calling conversation still gets tool calls", async () => {
  const response = await model.chat({
    messages: [{ role: "system", content: "sys" }, {
      role: "user",
      content: "How tall is the tower that inspired Tokyo Tower?",
    }],
    tools: [spec("search")],
  }, signal);
  assert.equal(response.tool_calls[0]?.name, "search");
});
