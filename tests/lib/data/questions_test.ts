import assert from "node:assert/strict";
import { parseQuestions } from "../../../lib/data/questions.ts";
import { ConfigError } from "../../../lib/errors.ts";
import { slowLoadReporter } from "../../../lib/util/load_progress.ts";

const context = {
  toolNames: ["search", "calculator", "date_calc"],
  documentIds: new Set(["eiffel_tower", "tokyo_tower"]),
};

Deno.test("questions: YAML list with every check type loads, defaults applied", async () => {
  const questions = await parseQuestions(
    `
- id: q1
  question: How tall is the Eiffel Tower?
  answers: [330]
  evidence: [eiffel_tower]
  kind: single_hop
  requires_tools: [search]
  tags: [towers]
  checks:
    - {type: numeric_equals, value: 330}
    - {type: numeric_equals, value: 330, tolerance: 2}
    - {type: contains, value: Eiffel}
    - {type: icontains, value: eiffel}
    - {type: not_contains, value: "553"}
    - {type: iregex, pattern: "\\\\btall"}
    - {type: equals, value: "330 m"}
    - {type: min_tool_calls, value: 1}
    - {type: max_tool_calls, value: 3}
    - {type: tool_used, tool: search}
- id: 2
  question: Second?
  checks: [{type: contains, value: x}]
`,
    "q.yaml",
    context,
  );
  assert.equal(questions.length, 2);
  assert.equal(questions[0].answers?.[0], "330");
  assert.deepEqual(questions[0].checks[0], { type: "numeric_equals", value: 330, tolerance: 0 });
  assert.equal(questions[1].id, "2");
});

Deno.test("questions: graded evidence, plain ids as grade 1, and no checks for retrieval-only questions", async () => {
  const [q] = await parseQuestions(
    "- id: a\n  question: A?\n  evidence: [eiffel_tower, {id: tokyo_tower, grade: 3}, 471]\n",
    "q.yaml",
    { ...context, documentIds: new Set([...context.documentIds, "471"]) },
  );
  assert.deepEqual(q.evidence, [
    { id: "eiffel_tower", grade: 1 },
    { id: "tokyo_tower", grade: 3 },
    { id: "471", grade: 1 },
  ]);
  assert.deepEqual(q.checks, []);
  const [none] = await parseQuestions(
    '{"id": "b", "question": "B?", "checks": []}\n',
    "q.jsonl",
    context,
  );
  assert.deepEqual(none.checks, []);
});

Deno.test("questions: QA JSONL with gold answers; exact_match and token_f1 take them by default", async () => {
  const [q, own] = await parseQuestions(
    '{"id": "a", "question": "Who?", "answers": ["Denver Broncos", "Broncos"], "checks": [{"type": "exact_match"}, {"type": "token_f1"}]}\n' +
      '{"id": "b", "question": "B?", "checks": [{"type": "token_f1", "answers": ["x y"], "threshold": 0.8}]}\n',
    "qa.jsonl",
    context,
  );
  assert.deepEqual(q.checks, [
    { type: "exact_match", answers: ["Denver Broncos", "Broncos"] },
    { type: "token_f1", answers: ["Denver Broncos", "Broncos"], threshold: 0.5 },
  ]);
  assert.deepEqual(own.checks, [{ type: "token_f1", answers: ["x y"], threshold: 0.8 }]);
});

Deno.test("questions: a mapping with a questions: list and JSONL both load", async () => {
  const yaml = await parseQuestions(
    "questions:\n  - {id: a, question: A?, checks: [{type: contains, value: a}]}\n",
    "q.yaml",
    context,
  );
  assert.equal(yaml[0].id, "a");
  const jsonl = await parseQuestions(
    '{"id": "a", "question": "A?", "checks": [{"type": "contains", "value": "a"}]}\n\n' +
      '{"id": "b", "question": "B?", "checks": [{"type": "equals", "value": "b"}]}\n',
    "q.jsonl",
    context,
  );
  assert.deepEqual(jsonl.map((q) => q.id), ["a", "b"]);
});

const failures: Array<{ name: string; file?: string; text: string; message: string }> = [
  {
    name: "an unknown check type gets a did-you-mean and its line",
    text: "- id: a\n  question: A?\n  checks:\n    - {type: numeric_equal, value: 3}\n",
    message:
      'Cannot load questions "q.yaml" (line 4, column 14): unknown type "numeric_equal" in [0].checks[0] — did you mean "numeric_equals"?',
  },
  {
    name: "an unknown question key gets a did-you-mean",
    text: "- id: a\n  question: A?\n  evidance: [x]\n  checks: [{type: contains, value: a}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 3): unknown key "evidance" in [0] — did you mean "evidence"?',
  },
  {
    name: "a missing question text",
    text: "- id: a\n  checks: [{type: contains, value: a}]\n",
    message: 'Cannot load questions "q.yaml" (line 1, column 3): [0].question: is required',
  },
  {
    name: "an exact_match check without gold answers",
    text: "- id: a\n  question: A?\n  checks: [{type: exact_match}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 12): exact_match in question "a" has no gold answers; give the question "answers:" or the check "answers:"',
  },
  {
    name: "an evidence grade below 1",
    text: "- id: a\n  question: A?\n  evidence: [{id: eiffel_tower, grade: 0}]\n",
    message: 'Cannot load questions "q.yaml" (line 3',
  },
  {
    name: "evidence naming a document twice",
    text: "- id: a\n  question: A?\n  evidence: [eiffel_tower, {id: eiffel_tower, grade: 2}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 28): evidence lists document "eiffel_tower" twice in question "a"',
  },
  {
    name: "a check missing its value",
    text: "- id: a\n  question: A?\n  checks: [{type: min_tool_calls}]\n",
    message: 'Cannot load questions "q.yaml" (line 3, column 12): [0].checks[0].value: is required',
  },
  {
    name: "a duplicate id",
    text:
      "- {id: a, question: A?, checks: [{type: contains, value: a}]}\n- {id: a, question: B?, checks: [{type: contains, value: b}]}\n",
    message:
      'Cannot load questions "q.yaml" (line 2, column 8): question id "a" is used twice (questions 1 and 2)',
  },
  {
    name: "an invalid iregex pattern",
    text: "- id: a\n  question: A?\n  checks: [{type: iregex, pattern: '(unclosed'}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 36): invalid iregex pattern: missing ): (unclosed (iregex patterns use RE2 syntax)',
  },
  {
    name: "an iregex pattern RE2 cannot run (a back-reference) is refused at load",
    text: "- id: a\n  question: A?\n  checks: [{type: iregex, pattern: '(a)\\1'}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 36): invalid iregex pattern: back-references such as \\1 are not supported: iregex runs on RE2, which matches in linear time and so cannot do this',
  },
  {
    name: "an unknown required tool",
    text:
      "- id: a\n  question: A?\n  requires_tools: [calculater]\n  checks: [{type: contains, value: a}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 20): question "a" requires unknown tool "calculater" — did you mean "calculator"?',
  },
  {
    name: "tool_used naming an unknown tool",
    text: "- id: a\n  question: A?\n  checks: [{type: tool_used, tool: serch}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 36): tool_used names unknown tool "serch" — did you mean "search"?',
  },
  {
    name: "evidence naming a document the corpus lacks",
    text:
      "- id: a\n  question: A?\n  evidence: [eifel_tower]\n  checks: [{type: contains, value: a}]\n",
    message:
      'Cannot load questions "q.yaml" (line 3, column 14): evidence names document "eifel_tower", which the corpus does not have — did you mean "eiffel_tower"?',
  },
  {
    name: "a YAML syntax error",
    text: "- id: a\n  question: [unclosed\n",
    message: 'Cannot load questions "q.yaml" (line 3, column 1): YAML syntax error:',
  },
  {
    name: "a file that is not a list",
    text: "id: a\n",
    message:
      'Cannot load questions "q.yaml" (line 1): expected a list of questions (or a mapping with a questions: list)',
  },
  {
    name: "an empty list",
    text: "[]\n",
    message: 'Cannot load questions "q.yaml": the file holds no questions',
  },
  {
    name: "a JSONL line that is not JSON names its line",
    file: "q.jsonl",
    text: '{"id": "a", "question": "A?", "checks": [{"type": "contains", "value": "a"}]}\n{oops\n',
    message: 'Cannot load questions "q.jsonl" (line 2): invalid JSON',
  },
  {
    name: "a JSONL schema error names its line",
    file: "q.jsonl",
    text: '\n{"id": "a", "question": "A?", "checks": [{"type": "contain", "value": "a"}]}\n',
    message:
      'Cannot load questions "q.jsonl" (line 2): unknown type "contain" in checks[0] — did you mean "contains"?',
  },
];

for (const f of failures) {
  Deno.test(`questions: ${f.name}`, async () => {
    const error = await (async () => {
      try {
        await parseQuestions(f.text, f.file ?? "q.yaml", context);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    assert.ok(
      error.message.startsWith(f.message),
      `message was:\n${error.message}\nexpected it to start with:\n${f.message}`,
    );
  });
}

Deno.test("questions: a load that takes over a second reports its steps and its end", async () => {
  let now = 0;
  const lines: string[] = [];
  // Every clock reading advances 0.6 s, so the load looks slow.
  const reporter = slowLoadReporter((t) => lines.push(t), () => (now += 600));
  let text = "";
  for (let i = 0; i < 12_000; i++) {
    text += `- {id: q${i}, question: Q?, checks: [{type: contains, value: x}]}\n`;
  }
  const questions = await parseQuestions(text, "big.yaml", context, reporter);
  reporter.done(`questions: loaded ${questions.length} from "big.yaml"`);
  // Quiet for the first second, then at most one line a second.
  assert.deepEqual(lines, [
    'questions: checking "big.yaml": 0 of 12000 (1.2 s)',
    'questions: checking "big.yaml": 10000 of 12000 (2.4 s)',
    'questions: loaded 12000 from "big.yaml" in 3.0 s',
  ]);
});

Deno.test("questions: a quick load reports nothing", () => {
  const lines: string[] = [];
  const reporter = slowLoadReporter((t) => lines.push(t), () => 0);
  reporter.step("working");
  reporter.done("loaded");
  assert.deepEqual(lines, []);
});

Deno.test("questions: one mistake on every line of a large file lists 20 problems and counts the rest", async () => {
  const text = Array.from(
    { length: 5000 },
    (_, i) => JSON.stringify({ id: `q${i}`, question: `Q${i}?`, answer: `${i}` }),
  ).join("\n");
  const error = await parseQuestions(text, "big.jsonl", context).then(
    () => null,
    (e) => e,
  );
  assert.ok(error instanceof ConfigError);
  assert.equal(error.issues.length, 21);
  assert.equal(error.issues[20].message, "4980 more problems not listed");
  const lines = error.message.split("\n");
  assert.equal(lines.length, 21);
  assert.match(lines[0], /^Cannot load questions "big\.jsonl" \(line 1\): unknown key "answer"/);
  assert.equal(lines[20], 'Cannot load questions "big.jsonl": 4980 more problems not listed');
});

Deno.test("questions: evidence missing from a large corpus on every question lists 20 problems, each with a did-you-mean, and counts the rest", async () => {
  const documentIds = new Set(Array.from({ length: 20_000 }, (_, i) => `doc_${i}`));
  const text = Array.from({ length: 3000 }, (_, i) =>
    JSON.stringify({
      id: `q${i}`,
      question: `Q${i}?`,
      answers: ["a"],
      evidence: [`doc_${i}x`],
      checks: [{ type: "exact_match" }],
    })).join("\n");
  const error = await parseQuestions(text, "ev.jsonl", { ...context, documentIds }).then(
    () => null,
    (e) => e,
  );
  assert.ok(error instanceof ConfigError);
  assert.equal(error.issues.length, 21);
  assert.equal(
    error.issues[0].message,
    'evidence names document "doc_0x", which the corpus does not have',
  );
  assert.match(error.issues[0].hint ?? "", /doc_0/);
  assert.equal(error.issues[20].message, "2980 more problems not listed");
});

Deno.test("questions: a value nested 20,000 deep is a problem on its line, not a crash", async () => {
  const deep = "[".repeat(20_000) + '"x"' + "]".repeat(20_000);
  const text = `{"id":"q1","question":"Q?","answers":["a"],"tags":${deep}}\n` +
    `{"id":"q2","question":"Q?","answers":["a"],"extra":${deep}}\n`;
  const error = await parseQuestions(text, "deep.jsonl", context).then(() => null, (e) => e);
  assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
  assert.deepEqual(error.issues.map((i) => [i.position.line, i.message.split(" —")[0]]), [
    [1, "tags[0]: must be a string"],
    [2, 'unknown key "extra"'],
  ]);
});
