import assert from "node:assert/strict";
import { parseYaml } from "../../../lib/util/yaml_source.ts";

/** Nine anchors, each a list of nine aliases of the one before: 9^9 values once expanded. */
function billionLaughs(): string {
  let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < 9; i++) {
    const name = String.fromCharCode(97 + i);
    const previous = String.fromCharCode(96 + i);
    text += `${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]\n`;
  }
  return text;
}

Deno.test("yaml: 1,000 questions sharing one anchor load, each with its own copy", () => {
  let text = "- &first {id: q0, question: Q?, checks: &checks [{type: contains, value: x}]}\n";
  for (let i = 1; i < 1000; i++) text += `- {id: q${i}, question: Q?, checks: *checks}\n`;
  const { source, issues } = parseYaml(text, "q.yaml");
  assert.deepEqual(issues, []);
  const questions = source.value as Array<{ checks: unknown[] }>;
  assert.equal(questions.length, 1000);
  assert.deepEqual(questions[999].checks, [{ type: "contains", value: "x" }]);
  // Copies, so that a loader changing one question cannot change another.
  assert.notEqual(questions[999].checks, questions[1].checks);
});

Deno.test("yaml: a billion-laughs bomb is refused at the alias that passes the budget", () => {
  const { source, issues } = parseYaml(billionLaughs(), "bomb.yaml");
  assert.equal(source.value, undefined);
  assert.deepEqual(issues, [{
    position: { file: "bomb.yaml", line: 6, column: 8 },
    message: "aliases expand this file to more than 100000 extra values (at *e); a file may " +
      "grow through aliases to at most one value per character it has. This looks like an " +
      "alias bomb; write the values out, or use fewer nested aliases",
  }]);
});

Deno.test("yaml: an alias inside the value it names is refused as a cycle", () => {
  assert.deepEqual(parseYaml("a: &a [1, *a]\n", "c.yaml").issues, [{
    position: { file: "c.yaml", line: 1, column: 11 },
    message: "alias *a stands inside the value it names (a cycle); copy the value instead",
  }]);
});

Deno.test("yaml: an alias with no anchor names itself and its line", () => {
  assert.deepEqual(parseYaml("a: 1\nb: *nope\n", "u.yaml").issues, [{
    position: { file: "u.yaml", line: 2, column: 4 },
    message: "alias *nope names no anchor &nope before it",
  }]);
});

Deno.test("yaml: an alias names the last anchor of its name before it", () => {
  const { source } = parseYaml("a: &x {b: 1}\nc: *x\nd: &x [2]\ne: *x\n", "u.yaml");
  assert.deepEqual(source.value, { a: { b: 1 }, c: { b: 1 }, d: [2], e: [2] });
});

Deno.test("yaml: a problem inside an aliased value is positioned at the anchor's text", () => {
  const { source } = parseYaml("a: &x {b: [1, 2]}\nc: *x\n", "u.yaml");
  assert.deepEqual(source.positionOf(["c", "b", 1]), { file: "u.yaml", line: 1, column: 15 });
});
