import assert from "node:assert/strict";
import { canonicalJson, modelKey, toolKey } from "../../../lib/cache/cache_key.ts";

const BASE = {
  provider: "openai",
  base_url: "http://127.0.0.1:1/v1",
  model: "m",
  messages: [{ role: "user", content: "q" }],
  tools: [],
  params: { temperature: 0, max_tokens: null },
};

Deno.test("canonical JSON sorts keys at every depth and drops undefined members", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [{ z: 1, y: undefined }], c: null } }),
    '{"a":{"c":null,"d":[{"z":1}]},"b":1}',
  );
  assert.equal(
    canonicalJson(JSON.parse('{"__proto__": {"x": 1}, "a": 2}')),
    '{"__proto__":{"x":1},"a":2}',
  );
});

Deno.test("canonical JSON refuses non-finite numbers and cycles", () => {
  assert.throws(() => canonicalJson({ a: NaN }), /non-finite number/);
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  assert.throws(() => canonicalJson(loop), /cycle/);
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
