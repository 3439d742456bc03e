import assert from "node:assert/strict";
import { z } from "zod";
import { restoreProtoKeys, shieldProtoKeys } from "../../../lib/util/proto_keys.ts";

Deno.test("proto keys: a __proto__ key survives z.record through shield and restore", () => {
  const schema = z.record(z.string(), z.string());
  const raw = JSON.parse('{"__proto__": "x", "constructor": "y"}');
  assert.deepEqual(Object.keys(schema.parse(raw)), ["constructor"]); // what zod does alone
  const kept = restoreProtoKeys(schema.parse(shieldProtoKeys(raw)));
  assert.deepEqual(Object.keys(kept), ["__proto__", "constructor"]);
  assert.equal(Object.getPrototypeOf(kept), Object.prototype);
  assert.ok(Object.hasOwn(kept, "__proto__"));
});

Deno.test("proto keys: nested keys and a key that begins with the stand-in round-trip exactly", () => {
  const raw = JSON.parse('{"a": [{"__proto__": {"__proto__": 1}}], "\\ufdd0b": 2}');
  const shielded = shieldProtoKeys(raw);
  assert.ok(!JSON.stringify(Object.keys(shielded as object)).includes('"__proto__"'));
  assert.equal(JSON.stringify(restoreProtoKeys(shielded)), JSON.stringify(raw));
});

Deno.test("proto keys: a value without such keys is returned as it is", () => {
  const raw = { a: [{ b: 1 }] };
  assert.equal(shieldProtoKeys(raw), raw);
  assert.equal(restoreProtoKeys(raw), raw);
});

Deno.test("proto keys: a value nested 50,000 deep is shielded and restored without running out of stack", () => {
  const depth = 50_000;
  const text = '{"a":'.repeat(depth) + '{"__proto__":[1,{"\uFDD0k":2}]}' + "}".repeat(depth);
  const value = JSON.parse(text);
  const shielded = shieldProtoKeys(value);
  assert.notEqual(shielded, value, "a copy: a key was renamed");
  let inner = shielded as Record<string, unknown>;
  for (let i = 0; i < depth; i++) inner = inner.a as Record<string, unknown>;
  assert.deepEqual(Object.keys(inner), ["\uFDD0__proto__"]);
  assert.equal(JSON.stringify(restoreProtoKeys(shielded)), text);
  const plain = JSON.parse("[".repeat(depth) + "1" + "]".repeat(depth));
  assert.equal(shieldProtoKeys(plain), plain, "nothing to rename: the value itself");
});
