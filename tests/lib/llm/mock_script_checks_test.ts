import assert from "node:assert/strict";
import { parseMockScript } from "../../../lib/llm/mock_script_load.ts";
import { checkMockScript } from "../../../lib/llm/mock_script_checks.ts";
import { formatIssue } from "../../../lib/errors.ts";

const context = {
  toolNames: ["search", "calculator", "corpus_grep", "my_tool"],
  questions: [
    { id: "q1", question: "How tall is the Eiffel Tower?" },
    { id: "q2", question: "What share of revenue came from exports in 2024?" },
  ],
};

function problems(text: string): string[] {
  return checkMockScript(parseMockScript(text, "m.yaml"), context).map((issue) =>
    formatIssue("mock script", issue)
  );
}

Deno.test("mock checks: a sound script has no problems, custom tools included", () => {
  assert.deepEqual(
    problems(
      '"eiffel tower":\n  - {call: search, args: {query: x}}\n  - {call: my_tool}\n' +
        "  - {answer: a, without: {calculator: b}}\n",
    ),
    [],
  );
});

Deno.test("mock checks: a call to a misspelt tool names the tool, its line and the fix", () => {
  assert.deepEqual(problems('"Eiffel Tower":\n  - {call: serch}\n  - {answer: a}\n'), [
    'Cannot load mock script "m.yaml" (line 2, column 12): in "Eiffel Tower": call to unknown tool "serch" — did you mean "search"?',
  ]);
});

Deno.test("mock checks: without: naming an unknown tool is refused", () => {
  assert.deepEqual(problems('"Eiffel Tower":\n  - {answer: a, without: {calculater: b}}\n'), [
    'Cannot load mock script "m.yaml" (line 2, column 27): in "Eiffel Tower": without: names unknown tool "calculater" — did you mean "calculator"?',
  ]);
});

Deno.test("mock checks: a fragment that matches no question is refused with the closest text", () => {
  assert.deepEqual(
    problems('"Eifel Tower":\n  - {answer: a}\n"moon landing":\n  - {answer: b}\n'),
    [
      'Cannot load mock script "m.yaml" (line 1, column 1): fragment "Eifel Tower" matches no question, so it is never used — did you mean "Eiffel Tower" (question "q1")?',
      'Cannot load mock script "m.yaml" (line 3, column 1): fragment "moon landing" matches no question, so it is never used — a fragment must appear in a question\'s text (compared ignoring case)',
    ],
  );
});

Deno.test("mock checks: a script whose every entry misses lists 20 problems, hints for those, and counts the rest", () => {
  // Each fragment is its question misspelt, as when a script is run against an edited question set.
  const questions = Array.from({ length: 500 }, (_, i) => ({
    id: `q${i}`,
    question: `What is the height of tower number ${i}?`,
  }));
  const text = questions.map((_, i) => `"heigth of tower number ${i}":\n  - {answer: a}\n`).join(
    "",
  );
  const listed = checkMockScript(parseMockScript(text, "m.yaml"), { ...context, questions })
    .map((issue) => formatIssue("mock script", issue));
  assert.equal(listed.length, 21);
  assert.equal(
    listed[0],
    'Cannot load mock script "m.yaml" (line 1, column 1): fragment "heigth of tower number 0" matches no question, so it is never used — did you mean "height of tower number 0" (question "q0")?',
  );
  assert.equal(listed[20], 'Cannot load mock script "m.yaml": 480 more problems not listed');
});
