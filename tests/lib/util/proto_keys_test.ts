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
