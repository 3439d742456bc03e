import assert from "node:assert/strict";
import type { ChatMessage, ChatRequest, ToolSpec } from "../../../lib/llm/model.ts";
import { createMockModel, UNKNOWN_ANSWER } from "../../../lib/llm/mock_model.ts";
import { MOCK_POLICIES } from "../../../systems/registry.ts";
import { entryFor } from "../../../lib/llm/mock_script.ts";
import { parseMockScript } from "../../../lib/llm/mock_script_load.ts";
import { ConfigError } from "../../../lib/errors.ts";
import { groundedMessages, groundingPassages } from "../../../lib/llm/grounded_prompt.ts";

const SCRIPT = parseMockScript(
  `
"tower that inspired":
  - {call: search, args: {query: Tokyo Tower design}}
  - {call: calculator, args: {expression: "1+1"}}
  - {call: search, args: {query: Eiffel Tower height}}
  - {answer: "330 metres [eiffel_tower]"}
  - {recall: "About 333 metres."}
"Tower":
  - {answer: "short fragment"}
`,
  "mock.yaml",
);
const PRICING = { input_per_mtok: 1, output_per_mtok: 2 };
const spec = (name: string): ToolSpec => ({ name, description: name, parameters: {} });
const signal = new AbortController().signal;

function request(question: string, tools: string[], history: ChatMessage[] = []): ChatRequest {
  return {
    messages: [{ role: "system", content: "sys" }, { role: "user", content: question }, ...history],
    tools: tools.map(spec),
  };
}

Deno.test("mock script: the longest matching fragment wins, ignoring case", () => {
  assert.equal(entryFor(SCRIPT, "What TOWER THAT INSPIRED it?")?.fragment, "tower that inspired");
  assert.equal(entryFor(SCRIPT, "Which tower?")?.fragment, "Tower");
  assert.equal(entryFor(SCRIPT, "Something else"), undefined);
});

Deno.test("mock model replays scripted calls in order, skipping tools not offered", async () => {
  const model = createMockModel(SCRIPT, "gpt-4o-mini", PRICING);
  const q = "How tall is the tower that inspired Tokyo Tower?";
  const first = await model.chat(request(q, ["search"]), signal);
  assert.deepEqual(first.tool_calls, [{
    id: "call_1",
    name: "search",
    arguments: '{"query":"Tokyo Tower design"}',
  }]);
  const history: ChatMessage[] = [
    { role: "assistant", content: null, tool_calls: first.tool_calls },
    { role: "tool", tool_call_id: "call_1", content: "..." },
  ];
  const second = await model.chat(request(q, ["search"], history), signal);
  assert.equal(second.tool_calls[0].arguments, '{"query":"Eiffel Tower height"}');
  history.push({ role: "assistant", content: null, tool_calls: second.tool_calls });
  const third = await model.chat(request(q, ["search"], history), signal);
  assert.deepEqual([third.content, third.tool_calls], ["330 metres [eiffel_tower]", []]);
});

Deno.test("mock model makes the calculator call when that tool is offered", async () => {
  const model = createMockModel(SCRIPT, "m", PRICING);
  const history: ChatMessage[] = [{ role: "assistant", content: null, tool_calls: [] }];
  const reply = await model.chat(
    request("the tower that inspired", ["search", "calculator"], history),
    signal,
  );
  assert.equal(reply.tool_calls[0].name, "calculator");
});

Deno.test("mock model recalls without tools, and answers when forced after tool results", async () => {
  const model = createMockModel(SCRIPT, "m", PRICING);
  const closed = await model.chat(request("the tower that inspired", []), signal);
  assert.equal(closed.content, "About 333 metres.");
  const forced = await model.chat(
    request("the tower that inspired", [], [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", name: "search", arguments: "{}" }],
      },
      { role: "tool", tool_call_id: "c", content: "passages" },
    ]),
    signal,
  );
  assert.equal(forced.content, "330 metres [eiffel_tower]");
  const noRecall = await model.chat(request("Which Tower?", []), signal);
  assert.equal(noRecall.content, UNKNOWN_ANSWER);
});

Deno.test("mock model default policy: search the question, then quote the last tool result", async () => {
  const model = createMockModel(SCRIPT, "m", PRICING);
  const q = "Who designed the harbour?";
  const first = await model.chat(request(q, ["search"]), signal);
  assert.deepEqual(first.tool_calls, [{
    id: "call_1",
    name: "search",
    arguments: JSON.stringify({ query: q }),
  }]);
  const after = await model.chat(
    request(q, ["search"], [
      { role: "assistant", content: null, tool_calls: first.tool_calls },
      {
        role: "tool",
        tool_call_id: "call_1",
        content: "[1] harbor (score 2.0)\n  Built by   Ada.",
      },
    ]),
    signal,
  );
  assert.equal(after.content, "From the documents: [1] harbor (score 2.0) Built by Ada.");
  const closed = await model.chat(request(q, []), signal);
  assert.equal(closed.content, UNKNOWN_ANSWER);
});

Deno.test("mock model usage is estimated from text, the same every time", async () => {
  const model = createMockModel(SCRIPT, "m", PRICING);
  const a = await model.chat(request("the tower that inspired", ["search"]), signal);
  const b = await model.chat(request("the tower that inspired", ["search"]), signal);
  assert.deepEqual(a.usage, b.usage);
  assert.ok(a.usage.input_tokens > 10 && a.usage.output_tokens > 0);
  assert.equal(model.id, "mock:m");
});

Deno.test("mock model rejects at once when the signal is already aborted", async () => {
  const model = createMockModel(SCRIPT, "m", PRICING);
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(model.chat(request("x", []), controller.signal), /stop/);
});

const badScripts: Array<{ name: string; text: string; message: string }> = [
  {
    name: "a call after the answer",
    text: '"q":\n  - {answer: a}\n  - {call: search}\n',
    message:
      'Cannot load mock script "m.yaml" (line 3, column 5): in "q": a call after the answer is never made',
  },
  {
    name: "two answers",
    text: '"q":\n  - {answer: a}\n  - {answer: b}\n',
    message:
      'Cannot load mock script "m.yaml" (line 3, column 5): in "q": more than one answer turn',
  },
  {
    name: "a misspelt turn key, named with a did-you-mean",
    text: '"q":\n  - {answr: a}\n',
    message:
      'Cannot load mock script "m.yaml" (line 2, column 6): unknown key "answr" in q[0]; a turn is {call: TOOL, args: {...}}, {answer: "..."}, {recall: "..."}, {code: "..."} or {raw: "..."} — did you mean "answer"?',
  },
  {
    name: "a misspelt key beside call, named with a did-you-mean",
    text: '"q":\n  - {call: search, arg: {query: x}}\n',
    message:
      'Cannot load mock script "m.yaml" (line 2, column 20): unknown key "arg" in q[0] — did you mean "args"?',
  },
  {
    name: "a misspelt without beside answer",
    text: '"q":\n  - {answer: a, witout: {search: b}}\n',
    message:
      'Cannot load mock script "m.yaml" (line 2, column 17): unknown key "witout" in q[0] — did you mean "without"?',
  },
  {
    name: "a turn that is not a mapping",
    text: '"q":\n  - just text\n',
    message:
      'Cannot load mock script "m.yaml" (line 2, column 5): q[0]: a turn is {call: TOOL, args: {...}}, {answer: "..."}, {recall: "..."}, {code: "..."} or {raw: "..."}',
  },
  {
    name: "an empty turn list",
    text: '"q": []\n',
    message: 'Cannot load mock script "m.yaml" (line 1, column 6): q: list at least one turn',
  },
  {
    name: "a duplicate fragment",
    text: '"q":\n  - {answer: a}\n"q":\n  - {answer: b}\n',
    message:
      'Cannot load mock script "m.yaml" (line 3, column 1): YAML syntax error: Map keys must be unique',
  },
];

for (const b of badScripts) {
  Deno.test(`mock script: ${b.name} is an error with its line`, () => {
    const error = (() => {
      try {
        parseMockScript(b.text, "m.yaml");
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof ConfigError);
    assert.ok(error.message.startsWith(b.message), error.message);
  });
}

Deno.test("mock model: an answer's `without` text is given when that tool was not offered", async () => {
  const script = parseMockScript(
    `"percent":
  - {call: search, args: {query: revenue}}
  - {call: calculator, args: {expression: "1/3"}}
  - answer: "33.33%"
    without: {calculator: "about a third"}
`,
    "m.yaml",
  );
  const model = createMockModel(script, "m", PRICING);
  const q = "What percent?";
  const toolTurn = (name: string, id: string): ChatMessage[] => [
    { role: "assistant", content: null, tool_calls: [{ id, name, arguments: "{}" }] },
    { role: "tool", tool_call_id: id, content: "ok" },
  ];
  const searchOnly = await model.chat(request(q, ["search"], toolTurn("search", "a")), signal);
  assert.equal(searchOnly.content, "about a third");
  const withCalc = await model.chat(
    request(q, ["search", "calculator"], [
      ...toolTurn("search", "a"),
      ...toolTurn("calculator", "b"),
    ]),
    signal,
  );
  assert.equal(withCalc.content, "33.33%");
  const forced = await model.chat(request(q, [], toolTurn("search", "a")), signal);
  assert.equal(
    forced.content,
    "about a third",
    "a forced final answer knows the tool was never called",
  );
});

Deno.test('mock script: a "__proto__" key in call args is kept, not dropped', () => {
  const script = parseMockScript(
    '"q":\n  - {call: lookup_table, args: {where: {__proto__: x}}}\n  - {answer: a}\n',
    "m.yaml",
  );
  const where = script.entries[0].calls[0].args.where as Record<string, unknown>;
  assert.ok(Object.hasOwn(where, "__proto__"));
  assert.equal(where["__proto__"], "x");
  assert.equal(Object.getPrototypeOf(where), Object.prototype);
});

Deno.test("mock model answers a grounded (rag) request from the script or the first passage", async () => {
  const script = parseMockScript(
    `
"growth rate":
  - {call: search, args: {query: sales}}
  - {call: calculator, args: {expression: "1+1"}}
  - {answer: "26.32%", without: {calculator: "About 26%."}}
"tower that inspired":
  - {call: search, args: {query: Tokyo Tower design}}
  - {answer: "330 metres [eiffel_tower]"}
`,
    "mock.yaml",
  );
  const model = createMockModel(script, "gpt-4o-mini", PRICING, { policies: MOCK_POLICIES });
  const passages = [
    { doc_id: "eiffel_tower", passage_id: "eiffel_tower#0", text: "The Eiffel Tower\nis 330 m." },
    { doc_id: "tokyo_tower", passage_id: "tokyo_tower#0", text: "Tokyo Tower is 333 m." },
  ];
  const ask = async (question: string, shown = passages) =>
    (await model.chat(
      { messages: groundedMessages(question, shown), tools: [], protocol: "grounded" },
      signal,
    )).content;
  assert.equal(await ask("Which tower that inspired Tokyo Tower?"), "330 metres [eiffel_tower]");
  // The calculator the entry would call is not offered to a rag system.
  assert.equal(await ask("What was the growth rate?"), "About 26%.");
  assert.equal(
    await ask("How tall is it?"),
    "From the documents: The Eiffel Tower is 330 m. [eiffel_tower]",
  );
  assert.equal(await ask("How tall is it?", []), UNKNOWN_ANSWER);
  // The same question outside a grounded prompt is closed-book: the recall answer.
  const closed = await model.chat(request("Which tower that inspired Tokyo Tower?", []), signal);
  assert.equal(closed.content, UNKNOWN_ANSWER);
});

Deno.test("groundingPassages reads back exactly the passages groundedMessages wrote", () => {
  const passages = [
    { doc_id: "a", passage_id: "a#0", text: "one two" },
    { doc_id: "b | c", passage_id: "b#3", text: "[2] doc_id: fake | passage: x" },
  ];
  assert.deepEqual(groundingPassages(groundedMessages("q", passages)), passages);
  assert.deepEqual(groundingPassages(groundedMessages("q", [])), []);
  assert.equal(groundingPassages([{ role: "system", content: "sys" }]), null);
  assert.equal(groundingPassages([]), null);
});

Deno.test("entryFor finds the same entry on every ask, per model, with a model's own turns beating default", () => {
  const script = parseMockScript(
    '"eiffel":\n  models:\n    gpt-a: [{answer: own}]\n    default: [{answer: shared}]\n' +
      '"eiffel tower":\n  models:\n    gpt-b: [{answer: longer}]\n',
    "m.yaml",
  );
  const question = "How tall is the Eiffel Tower?";
  for (let ask = 0; ask < 3; ask++) {
    assert.equal(entryFor(script, question, "gpt-a")?.answer, "own");
    assert.equal(entryFor(script, question, "gpt-b")?.answer, "longer");
    assert.equal(entryFor(script, question, "gpt-c")?.answer, "shared");
    assert.equal(entryFor(script, question, null)?.answer, "shared");
    assert.equal(entryFor(script, question, "")?.answer, "shared");
    assert.equal(entryFor(script, "Which tower?", "gpt-a"), undefined);
  }
  assert.equal(entryFor(script, "EIFFEL", "gpt-a")?.answer, "own");
});
