import assert from "node:assert/strict";
import {
  parseAction,
  reactJsonSystemPrompt,
  reactJsonToolNames,
} from "../../../lib/llm/react_json.ts";

const TOOLS = new Set(["search", "calculator"]);

Deno.test("react_json: a tool action and an answer action parse", () => {
  assert.deepEqual(parseAction('{"tool": "search", "args": {"query": "eiffel"}}', TOOLS), {
    kind: "tool",
    tool: "search",
    args: { query: "eiffel" },
  });
  assert.deepEqual(parseAction('  {"answer": "330 metres"}\n', TOOLS), {
    kind: "answer",
    answer: "330 metres",
  });
  assert.deepEqual(parseAction('{"tool": "search"}', TOOLS), {
    kind: "tool",
    tool: "search",
    args: {},
  });
});

Deno.test("react_json: one code fence around the object is accepted (``` or ```json)", () => {
  for (
    const reply of [
      '```json\n{"answer": "x"}\n```',
      '```\n{"answer": "x"}\n```',
      '```JSON\n{"answer": "x"}```',
    ]
  ) {
    assert.deepEqual(parseAction(reply, TOOLS), { kind: "answer", answer: "x" }, reply);
  }
});

const invalid: Array<[string, string | null, RegExp]> = [
  ["an empty reply", "", /the reply was empty/],
  ["a null reply", null, /the reply was empty/],
  ["prose", "I will search now.", /does not start with \{/],
  ["text before the JSON", 'Sure: {"answer": "x"}', /does not start with \{/],
  ["text after the JSON", '{"answer": "x"} hope this helps', /not valid JSON/],
  ["broken JSON", '{"tool": "search", "args": {"query": }', /not valid JSON/],
  ["a list", '[{"answer": "x"}]', /does not start with \{/],
  ["two fences", '```json\n{"answer": "x"}\n```\n```json\n{"answer": "y"}\n```', /does not start/],
  ["a fence with another language", '```python\n{"answer": "x"}\n```', /does not start/],
  ["extra keys", '{"tool": "search", "args": {}, "thought": "hm"}', /exactly the keys/],
  ["an answer beside a tool", '{"tool": "search", "answer": "x"}', /exactly the keys/],
  ["a non-string answer", '{"answer": 330}', /"answer" must be a string/],
  [
    "an unknown tool",
    '{"tool": "serch", "args": {}}',
    /no tool named "serch". Tools: search, calculator/,
  ],
  [
    "a prototype name as tool",
    '{"tool": "constructor", "args": {}}',
    /no tool named "constructor"/,
  ],
  [
    "args that are a list",
    '{"tool": "search", "args": ["eiffel"]}',
    /"args" must be a JSON object/,
  ],
  ["a __proto__ key", '{"__proto__": {"tool": "search"}, "answer": "x"}', /exactly the keys/],
  ["an empty object", "{}", /it has none/],
];

for (const [name, reply, message] of invalid) {
  Deno.test(`react_json: ${name} is an invalid action with a message saying why`, () => {
    const action = parseAction(reply, TOOLS);
    assert.equal(action.kind, "invalid");
    assert.match(action.kind === "invalid" ? action.message : "", message);
  });
}

Deno.test("react_json: a 5 MB reply is refused quickly and the message stays short", () => {
  const huge = `{"answer": "${"x".repeat(5_000_000)}"`;
  const action = parseAction(huge, TOOLS);
  assert.equal(action.kind, "invalid");
  assert.ok(action.kind === "invalid" && action.message.length < 300);
  const long = parseAction(`{"tool": "${"y".repeat(5_000_000)}"}`, TOOLS);
  assert.ok(long.kind === "invalid" && long.message.length < 300);
});

Deno.test("react_json: the system prompt lists every tool and the mock can read the names back", () => {
  const prompt = reactJsonSystemPrompt("Answer.", [
    { name: "search", description: "Find passages.", parameters: { type: "object" } },
    { name: "calculator", description: "Compute.", parameters: { type: "object" } },
  ]);
  assert.match(prompt, /^Answer\.\n/);
  assert.match(
    prompt,
    /### search\nFind passages\.\nArguments \(JSON Schema\): \{"type":"object"\}/,
  );
  assert.deepEqual(reactJsonToolNames(prompt), ["search", "calculator"]);
  assert.equal(reactJsonToolNames("You answer questions."), null);
});
