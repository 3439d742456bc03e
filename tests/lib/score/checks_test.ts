import assert from "node:assert/strict";
import type { Check } from "../../../lib/data/question_schema.ts";
import { loadEngine } from "../../../lib/regex/re2_instance.ts";
import { foldCase, runCheck, runChecks } from "../../../lib/score/checks.ts";
import type { ModelStep, RetrievalStep, Step, ToolStep } from "../../../lib/types.ts";

// iregex runs on RE2, loaded once (question loading does this in a run).
await loadEngine();

function tool(name: string, failed = false): ToolStep {
  return {
    type: "tool",
    tool: name,
    call_id: `call_${name}`,
    args: {},
    result: {
      output: failed ? "" : "ok",
      error: failed ? { kind: "invalid_args", message: "bad args" } : null,
      truncated: false,
      cost_usd: 0,
      latency_ms: 1,
    },
  };
}

const MODEL: ModelStep = {
  type: "model",
  usage: { input_tokens: 10, output_tokens: 5 },
  cost_usd: 0,
  latency_ms: 1,
  content: null,
  tool_calls: [],
  final: false,
};

const RETRIEVAL: RetrievalStep = {
  type: "retrieval",
  retriever: "default",
  query: "How tall?",
  results: [{ passage_id: "eiffel#0", doc_id: "eiffel", score: 2.5 }],
  latency_ms: 1,
  embedding_tokens: 0,
  cost_usd: 0,
  error: null,
};

/** Two searches (one failed) and a calculator call, between model steps. */
const STEPS: Step[] = [MODEL, tool("search"), tool("search", true), MODEL, tool("calculator")];

type Case = {
  name: string;
  check: Check;
  answer: string | null;
  steps?: Step[];
  passed: boolean;
  detail: string;
};

const CASES: Case[] = [
  // numeric_equals
  {
    name: "numeric_equals passes on an exact number in prose",
    check: { type: "numeric_equals", value: 330, tolerance: 0 },
    answer: "The Eiffel Tower is 330 metres tall [doc_eiffel].",
    passed: true,
    detail: "found 330 (want 330 ± 0)",
  },
  {
    name: "numeric_equals reads thousands separators",
    check: { type: "numeric_equals", value: 8849, tolerance: 0 },
    answer: "Everest stands 8,849 m high.",
    passed: true,
    detail: "found 8849 (want 8849 ± 0)",
  },
  {
    name: "numeric_equals passes within the tolerance",
    check: { type: "numeric_equals", value: 828, tolerance: 0.5 },
    answer: "It is about 828.3 m.",
    passed: true,
    detail: "found 828.3 (want 828 ± 0.5)",
  },
  {
    name: "numeric_equals passes at exactly the tolerance",
    check: { type: "numeric_equals", value: 100, tolerance: 5 },
    answer: "95",
    passed: true,
    detail: "found 95 (want 100 ± 5)",
  },
  {
    name: "numeric_equals absorbs float noise",
    check: { type: "numeric_equals", value: 0.3, tolerance: 0 },
    answer: String(0.1 + 0.2),
    passed: true,
    detail: "found 0.30000000000000004 (want 0.3 ± 0)",
  },
  {
    name: "numeric_equals matches the scaled reading of a scale word",
    check: { type: "numeric_equals", value: 1200000, tolerance: 0 },
    answer: "About 1.2 million visitors.",
    passed: true,
    detail: "found 1200000 (want 1200000 ± 0)",
  },
  {
    name: "numeric_equals matches a negative number",
    check: { type: "numeric_equals", value: -430, tolerance: 0 },
    answer: "The shore lies at −430 m.",
    passed: true,
    detail: "found -430 (want -430 ± 0)",
  },
  {
    name: "numeric_equals reports the first matching number",
    check: { type: "numeric_equals", value: 10, tolerance: 2 },
    answer: "Between 9 and 11.",
    passed: true,
    detail: "found 9 (want 10 ± 2)",
  },
  {
    name: "numeric_equals fails outside the tolerance and lists the numbers seen",
    check: { type: "numeric_equals", value: 828, tolerance: 0.5 },
    answer: "It has 8 lifts and opened in 2010; 8 more are planned.",
    passed: false,
    detail: "no number within 0.5 of 828; numbers seen: 8, 2010",
  },
  {
    name: "numeric_equals with no tolerance says equal to",
    check: { type: "numeric_equals", value: 330, tolerance: 0 },
    answer: "It is 324 m tall.",
    passed: false,
    detail: "no number equal to 330; numbers seen: 324",
  },
  {
    name: "numeric_equals fails on an answer without numbers",
    check: { type: "numeric_equals", value: 330, tolerance: 0 },
    answer: "I could not find it.",
    passed: false,
    detail: "no number equal to 330; no numbers in the answer",
  },
  {
    name: "numeric_equals lists at most ten distinct numbers",
    check: { type: "numeric_equals", value: 99, tolerance: 0 },
    answer: "1 2 3 4 5 6 7 8 9 10 11 12 1",
    passed: false,
    detail: "no number equal to 99; numbers seen: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more",
  },
  {
    name: "numeric_equals does not read a date as a negative number",
    check: { type: "numeric_equals", value: -3, tolerance: 0 },
    answer: "On 2025-03-05.",
    passed: false,
    detail: "no number equal to -3; numbers seen: 2025, 3, 5",
  },
  // contains
  {
    name: "contains passes on a case-sensitive substring",
    check: { type: "contains", value: "553" },
    answer: "The CN Tower is 553 m tall.",
    passed: true,
    detail: '"553" appears in the answer',
  },
  {
    name: "contains fails when the substring is missing",
    check: { type: "contains", value: "553" },
    answer: "The CN Tower is 550 m tall.",
    passed: false,
    detail: '"553" does not appear in the answer',
  },
  {
    name: "contains fails on a case difference and says so",
    check: { type: "contains", value: "Eiffel Tower" },
    answer: "the eiffel tower",
    passed: false,
    detail: '"Eiffel Tower" does not appear in the answer (it does ignoring case)',
  },
  // icontains
  {
    name: "icontains passes ignoring case",
    check: { type: "icontains", value: "Eiffel Tower" },
    answer: "It was modelled on the EIFFEL TOWER.",
    passed: true,
    detail: '"Eiffel Tower" appears in the answer (ignoring case)',
  },
  {
    name: "icontains passes across NFKC forms (full-width letters)",
    check: { type: "icontains", value: "Taipei 101" },
    answer: "Ｔａｉｐｅｉ １０１",
    passed: true,
    detail: '"Taipei 101" appears in the answer (ignoring case)',
  },
  {
    name: "icontains fails when the text is missing in any case",
    check: { type: "icontains", value: "Burj Khalifa" },
    answer: "Taipei 101 was overtaken in 2010.",
    passed: false,
    detail: '"Burj Khalifa" does not appear in the answer, even ignoring case',
  },
  // not_contains
  {
    name: "not_contains passes when the value is absent",
    check: { type: "not_contains", value: "1889" },
    answer: "The documents do not say.",
    passed: true,
    detail: '"1889" does not appear in the answer in any case',
  },
  {
    name: "not_contains fails when the value appears",
    check: { type: "not_contains", value: "1889" },
    answer: "It was finished in 1889.",
    passed: false,
    detail: '"1889" appears in the answer',
  },
  {
    name: "not_contains fails when the value appears in another case",
    check: { type: "not_contains", value: "Gustave Eiffel" },
    answer: "designed by GUSTAVE EIFFEL",
    passed: false,
    detail: '"Gustave Eiffel" appears in the answer',
  },
  // iregex
  {
    name: "iregex passes on a case-insensitive match anywhere and quotes it",
    check: { type: "iregex", pattern: "(not|no) (found|information)" },
    answer: "Sorry, NO INFORMATION about that in the corpus.",
    passed: true,
    detail: '/(not|no) (found|information)/i matches "NO INFORMATION"',
  },
  {
    name: "iregex matches Unicode classes and folds accented capitals",
    check: { type: "iregex", pattern: "\\p{L}{3}" },
    answer: "ok ÉTÉ",
    passed: true,
    detail: '/\\p{L}{3}/i matches "ÉTÉ"',
  },
  {
    name: "iregex fails when nothing matches",
    check: { type: "iregex", pattern: "cannot (find|answer)" },
    answer: "It is 330 m.",
    passed: false,
    detail: "/cannot (find|answer)/i does not match the answer",
  },
  {
    name: "iregex fails on an invalid pattern and names the error",
    check: { type: "iregex", pattern: "(unclosed" },
    answer: "anything",
    passed: false,
    detail: "invalid pattern /(unclosed/i: missing ): (unclosed (iregex patterns use RE2 syntax)",
  },
  // equals
  {
    name: "equals passes on the trimmed answer",
    check: { type: "equals", value: " Paris " },
    answer: "\n Paris\t",
    passed: true,
    detail: 'answer is exactly "Paris"',
  },
  {
    name: "equals ignores one final period",
    check: { type: "equals", value: "Paris" },
    answer: "Paris.",
    passed: true,
    detail: 'answer is exactly "Paris" (ignoring a final period)',
  },
  {
    name: "equals ignores no more than one final period",
    check: { type: "equals", value: "Paris" },
    answer: "Paris..",
    passed: false,
    detail: 'answer "Paris.." is not exactly "Paris"',
  },
  {
    name: "equals keeps a period the value asks for",
    check: { type: "equals", value: "St." },
    answer: "St",
    passed: false,
    detail: 'answer "St" is not exactly "St."',
  },
  {
    name: "equals is case-sensitive and says when only case differs",
    check: { type: "equals", value: "Paris" },
    answer: "paris",
    passed: false,
    detail: 'answer "paris" is not exactly "Paris" (differs only in case)',
  },
  {
    name: "equals fails on extra words and cuts a long answer",
    check: { type: "equals", value: "Paris" },
    answer: "Paris " + "x".repeat(100),
    passed: false,
    detail: `answer "Paris ${"x".repeat(73)}…" is not exactly "Paris"`,
  },
  // min_tool_calls / max_tool_calls: every tool step counts, failed ones too.
  {
    name: "min_tool_calls passes counting failed calls",
    check: { type: "min_tool_calls", value: 3 },
    answer: "330",
    passed: true,
    detail: "3 tool calls (need at least 3)",
  },
  {
    name: "min_tool_calls fails with too few calls",
    check: { type: "min_tool_calls", value: 2 },
    answer: "330",
    steps: [MODEL, tool("search")],
    passed: false,
    detail: "1 tool call (need at least 2)",
  },
  {
    name: "min_tool_calls of zero passes without calls",
    check: { type: "min_tool_calls", value: 0 },
    answer: "330",
    steps: [MODEL],
    passed: true,
    detail: "0 tool calls (need at least 0)",
  },
  {
    name: "max_tool_calls passes at the limit",
    check: { type: "max_tool_calls", value: 3 },
    answer: "330",
    passed: true,
    detail: "3 tool calls (allowed at most 3)",
  },
  {
    name: "max_tool_calls fails over the limit",
    check: { type: "max_tool_calls", value: 2 },
    answer: "330",
    passed: false,
    detail: "3 tool calls (allowed at most 2)",
  },
  {
    name: "min_tool_calls counts a system's own retrieval as a search call",
    check: { type: "min_tool_calls", value: 1 },
    answer: "330",
    steps: [RETRIEVAL, MODEL],
    passed: true,
    detail: "1 tool call (need at least 1)",
  },
  // tool_used
  {
    name: "tool_used search passes on a system's own retrieval",
    check: { type: "tool_used", tool: "search" },
    answer: "330",
    steps: [RETRIEVAL],
    passed: true,
    detail: 'tool "search" called 1 time',
  },
  {
    name: "tool_used passes and counts the calls",
    check: { type: "tool_used", tool: "search" },
    answer: "330",
    passed: true,
    detail: 'tool "search" called 2 times',
  },
  {
    name: "tool_used passes on one call",
    check: { type: "tool_used", tool: "calculator" },
    answer: "330",
    passed: true,
    detail: 'tool "calculator" called 1 time',
  },
  {
    name: "tool_used fails and names the tools that were called",
    check: { type: "tool_used", tool: "date_calc" },
    answer: "330",
    passed: false,
    detail: 'tool "date_calc" not called; called: search, calculator',
  },
  {
    name: "tool_used fails without any tool call",
    check: { type: "tool_used", tool: "calculator" },
    answer: "330",
    steps: [MODEL],
    passed: false,
    detail: 'tool "calculator" not called; no tools called',
  },
  {
    name: "tool_used matches the tool name exactly",
    check: { type: "tool_used", tool: "Search" },
    answer: "330",
    steps: [tool("search")],
    passed: false,
    detail: 'tool "Search" not called; called: search',
  },
];

/** Every answer-text check, each of which would pass on a suitable answer. */
const ANSWER_CHECKS: Check[] = [
  { type: "numeric_equals", value: 330, tolerance: 0 },
  { type: "contains", value: "330" },
  { type: "icontains", value: "330" },
  { type: "not_contains", value: "1889" },
  { type: "iregex", pattern: ".*" },
  { type: "equals", value: "" },
];

for (const check of ANSWER_CHECKS) {
  CASES.push({
    name: `${check.type} fails on a missing answer`,
    check,
    answer: null,
    passed: false,
    detail: "no answer",
  });
  CASES.push({
    name: `${check.type} fails on a blank answer`,
    check,
    answer: " \n\t",
    passed: false,
    detail: "empty answer",
  });
}

CASES.push(
  {
    name: "min_tool_calls still evaluates without an answer",
    check: { type: "min_tool_calls", value: 1 },
    answer: null,
    passed: true,
    detail: "3 tool calls (need at least 1)",
  },
  {
    name: "max_tool_calls still evaluates without an answer",
    check: { type: "max_tool_calls", value: 1 },
    answer: null,
    passed: false,
    detail: "3 tool calls (allowed at most 1)",
  },
  {
    name: "tool_used still evaluates without an answer",
    check: { type: "tool_used", tool: "calculator" },
    answer: null,
    passed: true,
    detail: 'tool "calculator" called 1 time',
  },
);

for (const c of CASES) {
  Deno.test(c.name, () => {
    assert.deepEqual(runCheck(c.check, c.answer, c.steps ?? STEPS), {
      type: c.check.type,
      passed: c.passed,
      detail: c.detail,
    });
  });
}

Deno.test("runChecks runs every check in order", () => {
  const checks: Check[] = [
    { type: "numeric_equals", value: 330, tolerance: 0 },
    { type: "icontains", value: "eiffel" },
    { type: "min_tool_calls", value: 4 },
  ];
  assert.deepEqual(runChecks(checks, "The Eiffel Tower: 330 m.", STEPS), [
    { type: "numeric_equals", passed: true, detail: "found 330 (want 330 ± 0)" },
    { type: "icontains", passed: true, detail: '"eiffel" appears in the answer (ignoring case)' },
    { type: "min_tool_calls", passed: false, detail: "3 tool calls (need at least 4)" },
  ]);
});

Deno.test("runChecks returns nothing for no checks", () => {
  assert.deepEqual(runChecks([], "330", STEPS), []);
});

Deno.test("runCheck does not change its inputs", () => {
  const steps = structuredClone(STEPS);
  const check: Check = { type: "tool_used", tool: "search" };
  runCheck(check, "330", steps);
  assert.deepEqual(steps, STEPS);
  assert.deepEqual(check, { type: "tool_used", tool: "search" });
});

Deno.test("foldCase normalises with NFKC, then lower-cases", () => {
  assert.equal(foldCase("ＡＢＣ ﬁne Ǆ"), "abc fine d\u017E");
  // Lower-casing is not full case folding.
  assert.notEqual(foldCase("STRASSE"), foldCase("straße"));
});
