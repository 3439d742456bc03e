import assert from "node:assert/strict";
import { MASK, Secrets } from "../../../tools/mcp/secrets.ts";

Deno.test("secrets: a value is masked as it is and as JSON text writes it", () => {
  const secrets = new Secrets();
  secrets.add('a"b\\c\nd-123');
  const value = 'a"b\\c\nd-123';
  assert.equal(secrets.redact(`raw ${value} end`), `raw ${MASK} end`);
  assert.equal(secrets.redact(JSON.stringify({ key: value })), `{"key":"${MASK}"}`);
  assert.deepEqual(JSON.parse(secrets.redact(JSON.stringify({ key: value }))), { key: MASK });
});

Deno.test("secrets: redactJson masks every string and key in place, at any depth, keeping __proto__ a key", () => {
  const secrets = new Secrets();
  secrets.add("hunter2-token");
  const schema = JSON.parse(
    '{"type":"object","properties":{"hunter2-token":{"type":"string","description":"Bearer hunter2-token"},' +
      '"__proto__":{"enum":["x hunter2-token"]}}}',
  );
  const same = secrets.redactJson(schema);
  assert.equal(same, schema, "changed in place");
  assert.deepEqual(Object.keys(schema.properties), ["__proto__", MASK]);
  assert.equal(schema.properties[MASK].description, `Bearer ${MASK}`);
  assert.deepEqual(Object.getOwnPropertyDescriptor(schema.properties, "__proto__")?.value, {
    enum: [`x ${MASK}`],
  });
  assert.equal(Object.getPrototypeOf(schema.properties), Object.prototype);
  // 50,000 levels: walked with a list, no stack overflow.
  const deep = JSON.parse('{"a":'.repeat(50_000) + '"hunter2-token"' + "}".repeat(50_000));
  secrets.redactJson(deep);
  let node = deep;
  for (let i = 0; i < 49_999; i++) node = node.a;
  assert.equal(node.a, MASK);
});

Deno.test("secrets: short values and an empty list mask nothing", () => {
  const secrets = new Secrets();
  secrets.add("1");
  assert.equal(secrets.empty, true);
  const value = { a: "1" };
  assert.equal(secrets.redactJson(value), value);
  assert.equal(secrets.redact("a 1"), "a 1");
});
