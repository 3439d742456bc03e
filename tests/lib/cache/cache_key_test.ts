import assert from "node:assert/strict";
import { modelKey, repeatPart, toolKey } from "../../../lib/cache/cache_key.ts";

const BASE = {
  provider: "openai",
  base_url: "http://127.0.0.1:1/v1",
  model: "m",
  messages: [{ role: "user", content: "q" }],
  tools: [],
  params: { temperature: 0, max_tokens: null },
};

Deno.test("a key ignores key order at every depth, keeps a __proto__ key, and refuses NaN and cycles", () => {
  const key = modelKey({ ...BASE, messages: [{ content: "q", role: "user" }] });
  assert.equal(key, modelKey(BASE));
  const proto = (text: string) =>
    toolKey({ tool: "t", server: null, options: {}, arguments: JSON.parse(text) });
  assert.notEqual(proto('{"__proto__": {"x": 1}, "a": 2}'), proto('{"a": 2}'));
  assert.throws(
    () => modelKey({ ...BASE, params: { temperature: NaN, max_tokens: null } }),
    /non-finite number/,
  );
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  assert.throws(() => toolKey({ tool: "t", server: null, options: {}, arguments: loop }), /cycle/);
});

Deno.test("keys recorded by earlier versions are unchanged (the cache's entries stay hits)", () => {
  // Computed by the recursive key sort this module had before lib/util/canonical_json.ts.
  const rich = {
    ...BASE,
    model: "gpt-x",
    messages: [
      { role: "system", content: "Answer from the documents. 日本 ü \ud83c\udfaf" },
      { role: "user", content: "q", name: undefined },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "c1",
          type: "function",
          function: { name: "search", arguments: '{"query":"x"}' },
        }],
      },
      { role: "tool", tool_call_id: "c1", content: "result" },
    ],
    tools: [{
      type: "function",
      function: {
        name: "search",
        description: "d",
        parameters: {
          type: "object",
          properties: {
            query: { type: "string" },
            "10": { type: "number" },
            "2": { type: "number" },
            b: {},
            B: {},
          },
          required: ["query"],
        },
      },
    }],
    params: { temperature: 0.2, max_tokens: 256 },
  };
  assert.equal(modelKey(BASE), "e6d3a0afe25f9a6b86fc234ff78d5315c79f530f7c89ed924188434e2e2e58b0");
  assert.equal(modelKey(rich), "79bf285f027b8bb0b5c045e9b56f8c200ba6f675d4e8c4782975abdbad7a3e2f");
  const args = JSON.parse('{"where":{"__proto__":"x","10":1,"2":2},"z":[1,{"b":2,"a":1}]}');
  assert.equal(
    toolKey({ tool: "lookup_table", server: null, options: { table: "t" }, arguments: args }),
    "2a5d2ca28ae6d11faede4f2c9ee60e2ce637247ec7fd6eea096fb17f24aee127",
  );
});

Deno.test("a request nested 50,000 deep gets a key", () => {
  const deep = JSON.parse('{"k":['.repeat(50_000) + "1" + "]}".repeat(50_000));
  assert.match(
    toolKey({ tool: "t", server: null, options: {}, arguments: deep }),
    /^[0-9a-f]{64}$/,
  );
});

Deno.test("a model key is a SHA-256 hex that ignores key order and changes with every part", () => {
  const key = modelKey(BASE);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(modelKey({ ...BASE, params: { max_tokens: null, temperature: 0 } }), key);
  const variants = [
    { ...BASE, provider: "other" },
    { ...BASE, base_url: "http://127.0.0.1:2/v1" },
    { ...BASE, model: "n" },
    { ...BASE, messages: [{ role: "user", content: "q2" }] },
    { ...BASE, tools: [{ name: "search", description: "", parameters: {} }] },
    { ...BASE, params: { temperature: 0.5, max_tokens: null } },
    { ...BASE, params: { temperature: 0, max_tokens: 100 } },
  ];
  assert.equal(new Set([key, ...variants.map(modelKey)]).size, variants.length + 1);
});

Deno.test("a tool key changes with the tool, server, options and arguments, and never equals a model key", () => {
  const base = { tool: "web", server: "custom:/t.ts#web", options: {}, arguments: { q: "x" } };
  const keys = [
    toolKey(base),
    toolKey({ ...base, tool: "web2" }),
    toolKey({ ...base, server: "mcp:everything" }),
    toolKey({ ...base, options: { max: 1 } }),
    toolKey({ ...base, arguments: { q: "y" } }),
    modelKey(BASE),
  ];
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(toolKey({ ...base, arguments: { q: "x" } }), keys[0]);
});

Deno.test("each repeat from 2 on has its own key; repeat 1 keeps the key earlier versions recorded", () => {
  const tool = { tool: "web", server: "custom:/t.ts#web", options: {}, arguments: { q: "x" } };
  assert.equal(modelKey({ ...BASE, ...repeatPart(1) }), modelKey(BASE));
  assert.equal(modelKey({ ...BASE, ...repeatPart(undefined) }), modelKey(BASE));
  assert.equal(toolKey({ ...tool, ...repeatPart(1) }), toolKey(tool));
  const models = [1, 2, 3, 10].map((r) => modelKey({ ...BASE, ...repeatPart(r) }));
  const tools = [1, 2, 3, 10].map((r) => toolKey({ ...tool, ...repeatPart(r) }));
  assert.equal(new Set([...models, ...tools]).size, 8);
});
