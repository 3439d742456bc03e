import assert from "node:assert/strict";
import {
  MAX_PLACEHOLDER_CHARS,
  placeholdersIn,
  renderPrompt,
} from "../../../lib/prompts/template.ts";

Deno.test("placeholdersIn finds {{name}} and {{ name }}, and leaves JSON and other braces as text", () => {
  const template =
    'Use {{tools}} in {{ max_steps }} turns. Reply {"answer": "..."} or {{ 1 + 1 }} {{}}';
  assert.deepEqual(placeholdersIn(template).map((p) => p.name), ["tools", "max_steps"]);
  assert.deepEqual(placeholdersIn("{{{question}}}").map((p) => [p.name, p.start, p.end]), [
    ["question", 1, 13],
  ]);
});

Deno.test("renderPrompt fills placeholders in one pass: a value holding a placeholder is not expanded", () => {
  const values = new Map([["question", "What is {{tools}}?"], ["tools", "search"]]);
  assert.equal(
    renderPrompt("Q: {{question}} / tools: {{ tools }}", values),
    "Q: What is {{tools}}? / tools: search",
  );
  // No placeholder: the very same string comes back.
  const plain = 'Reply {"answer": "..."}.';
  assert.equal(renderPrompt(plain, values), plain);
});

Deno.test("renderPrompt refuses a placeholder without a value (the config check lets none through)", () => {
  assert.throws(() => renderPrompt("{{today}}", new Map()), /\{\{today\}\} has no value/);
});

Deno.test("placeholdersIn looks only a bounded way ahead: 200,000 unclosed {{ and a far }} make no placeholder", () => {
  const far = `{{${"a".repeat(MAX_PLACEHOLDER_CHARS + 1)}}}`;
  assert.deepEqual(placeholdersIn(far), []);
  const hostile = "{{ ".repeat(200_000) + "}}";
  assert.deepEqual(placeholdersIn(hostile), []);
  assert.deepEqual(placeholdersIn(`${hostile}{{question}}`).map((p) => p.name), ["question"]);
});
