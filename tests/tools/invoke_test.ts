import assert from "node:assert/strict";
import { toolResult } from "../../tools/define_tool.ts";
import { normalizeReturn } from "../../tools/invoke.ts";

Deno.test('invoke: a tool\'s data keeps "__proto__" and "constructor" as plain keys, in order', () => {
  const data = JSON.parse(
    '{"a": 1, "__proto__": {"polluted": true}, "constructor": "c", "nested": [{"__proto__": 2}]}',
  );
  const result = normalizeReturn("probe", toolResult({ output: "ok", data }));
  const copy = result.data as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.keys(copy), ["a", "__proto__", "constructor", "nested"]);
  assert.ok(Object.hasOwn(copy, "__proto__"));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(
    JSON.stringify(copy),
    '{"a":1,"__proto__":{"polluted":true},"constructor":"c","nested":[{"__proto__":2}]}',
  );
  assert.notEqual(copy, data, "a copy, not the tool's own object");
});

Deno.test("invoke: data that is not plain JSON is an execution error naming what is wrong", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (
    const [value, why] of [
      [cyclic, "is cyclic"],
      [{ n: Number.NaN }, "contains a non-finite number"],
      [{ d: new Date(0) }, "contains a Date object"],
    ] as const
  ) {
    const result = normalizeReturn("probe", toolResult({ output: "x", data: value as never }));
    assert.equal(result.error?.kind, "execution");
    assert.equal(result.error?.detail, `tool "probe": data ${why}`);
  }
});
