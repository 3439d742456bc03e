import assert from "node:assert/strict";
import { parseJsonPath, readJsonPath } from "../../../lib/util/json_path.ts";

const read = (value: unknown, path: string) => readJsonPath(value, parseJsonPath(path));

Deno.test("json path reads names, quoted keys and indexes", () => {
  const reply = { data: { hits: [{ id: "a" }, { "doc id": "b", "it's": 1 }] } };
  assert.equal(read(reply, "$"), reply);
  assert.deepEqual(read(reply, "$.data.hits"), reply.data.hits);
  assert.equal(read(reply, "$.data.hits[0].id"), "a");
  assert.equal(read(reply, "$.data.hits[1]['doc id']"), "b");
  assert.equal(read(reply, `$.data.hits[1]["it's"]`), 1);
  assert.equal(read(reply, "$.data.hits[1]['it\\'s']"), 1);
  assert.equal(read(reply, "$.data.hits[2]"), undefined);
  assert.equal(read(reply, "$.data.missing.deeper"), undefined);
});

Deno.test("json path never reads a prototype or a string's length", () => {
  const parsed = JSON.parse('{"a": "text", "__proto__": {"x": 1}}');
  assert.equal(read({}, "$.constructor"), undefined);
  assert.equal(read({}, "$.__proto__"), undefined);
  assert.equal(read({ a: [] }, "$.a.length"), undefined);
  assert.equal(read(parsed, "$.a.length"), undefined);
  // An own "__proto__" key (as JSON.parse makes it) is an ordinary key.
  assert.deepEqual(read(parsed, "$.__proto__"), { x: 1 });
  assert.equal(read(new Map([["a", 1]]), "$.a"), undefined);
});

Deno.test("json path refuses what it cannot read, saying where", () => {
  for (
    const [path, message] of [
      ["hits", /starts with "\$"/],
      ["$.", /expected a name after "\." at character 2/],
      ["$.a b", /unexpected " " at character 4/],
      ["$[x]", /expected an index/],
      ["$[-1]", /expected an index/],
      ["$['open", /unclosed/],
      ["$['a\\n']", /unknown escape/],
      ["$[*]", /expected an index/],
      ["$" + ".a".repeat(300), /at most 500 characters/],
    ] as const
  ) {
    assert.throws(() => parseJsonPath(path), message, path);
  }
});
