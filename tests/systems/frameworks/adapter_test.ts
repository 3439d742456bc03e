import assert from "node:assert/strict";
import {
  argsObject,
  argsText,
  assistantMessage,
  CallArgs,
  flattenText,
} from "../../../systems/frameworks/adapter.ts";
import { fromChildSchema } from "../../../systems/frameworks/protocol.ts";

Deno.test("argsText keeps the model's own text when the framework's object is the same JSON, or when the model's was not JSON", () => {
  const model = '{ "query" : "Eiffel",  "k": 3 }';
  assert.equal(argsText({ k: 3, query: "Eiffel" }, model), model);
  assert.equal(argsText({ query: "Tokyo" }, model), '{"query":"Tokyo"}');
  assert.equal(argsText({}, "{bad"), "{bad");
  assert.equal(argsText('{"a":1}', undefined), '{"a":1}');
  const calls = new CallArgs();
  calls.note({ content: null, tool_calls: [{ id: "c1", name: "search", arguments: model }] });
  assert.equal(calls.text("c1", { query: "Eiffel", k: 3 }), model);
  assert.equal(calls.text("c2", { query: "Eiffel", k: 3 }), '{"query":"Eiffel","k":3}');
});

Deno.test("argsObject gives a framework an object, whatever the model sent", () => {
  assert.deepEqual(argsObject('{"q":1}'), { q: 1 });
  for (const text of ["{bad", "[1,2]", "null", "3", '"s"']) assert.deepEqual(argsObject(text), {});
});

Deno.test("flattenText joins content blocks; an assistant message with no text has content null", () => {
  assert.equal(
    flattenText([{ type: "text", text: "a" }, "b", { type: "image" }, { text: "c" }]),
    "abc",
  );
  assert.equal(flattenText(undefined), "");
  assert.deepEqual(assistantMessage("", []), { role: "assistant", content: null });
});

Deno.test("the child's lines are parsed strictly: unknown keys, wrong types and __proto__ are refused", () => {
  const ok = { t: "done", run: 1, answer: "x" };
  assert.ok(fromChildSchema.safeParse(ok).success);
  assert.ok(!fromChildSchema.safeParse({ ...ok, extra: 1 }).success);
  assert.ok(!fromChildSchema.safeParse({ ...ok, run: "1" }).success);
  assert.ok(
    !fromChildSchema.safeParse(JSON.parse('{"t":"done","run":1,"answer":"x","__proto__":{}}'))
      .success,
  );
  assert.ok(
    !fromChildSchema.safeParse({ t: "model", run: 1, seq: 1, messages: [], tools: [] }).success,
  );
  assert.ok(!fromChildSchema.safeParse({ t: "nope" }).success);
});
