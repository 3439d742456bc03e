import assert from "node:assert/strict";
import { type FailureInput, failureLabel } from "../../../lib/score/failure_label.ts";
import {
  FAILURE_LABELS,
  type RetrievalStep,
  type Step,
  type ToolStep,
} from "../../../lib/types.ts";

const NO_FLAGS = { best_effort: false, budget_exhausted: false, format_error: false };

function tool(name: string, docs: string[], error = false): ToolStep {
  return {
    type: "tool",
    tool: name,
    call_id: "c",
    args: {},
    result: {
      output: "",
      data: { results: docs.map((doc_id) => ({ doc_id })) },
      error: error ? { kind: "execution", message: "failed" } : null,
      truncated: false,
      cost_usd: 0,
      latency_ms: 1,
    },
  };
}

function retrieval(docs: string[]): RetrievalStep {
  return {
    type: "retrieval",
    retriever: "bm25",
    query: "q",
    results: docs.map((doc_id, i) => ({ passage_id: `${doc_id}#0`, doc_id, score: 1 - i / 10 })),
    latency_ms: 1,
    embedding_tokens: 0,
    cost_usd: 0,
    error: null,
  };
}

function line(overrides: Partial<FailureInput> = {}, steps: Step[] = []): FailureInput {
  return { passed: false, error: null, flags: NO_FLAGS, steps, ...overrides };
}

const EVIDENCE = { evidence: [{ id: "eiffel", grade: 1 }] };

Deno.test("failure label: a passed line has none", () => {
  assert.equal(failureLabel(line({ passed: true }), EVIDENCE), null);
});

Deno.test("failure label: the labels are the documented list, in precedence order", () => {
  assert.deepEqual(FAILURE_LABELS, [
    "model_error",
    "tool_error",
    "budget_exhausted",
    "format_error",
    "retrieval_miss",
    "generation_miss",
    "other",
  ]);
});

const cases: Array<
  { name: string; line: FailureInput; question: Parameters<typeof failureLabel>[1]; label: string }
> = [
  {
    name: "a model API failure is model_error, whatever else happened",
    line: line({
      error: { kind: "model", message: "HTTP 500" },
      flags: { ...NO_FLAGS, budget_exhausted: true },
    }, [tool("calculator", [], true)]),
    question: { ...EVIDENCE, requires_tools: ["calculator"] },
    label: "model_error",
  },
  {
    name: "a required tool whose every call failed is tool_error",
    line: line({}, [
      tool("calculator", [], true),
      tool("calculator", [], true),
      tool("search", ["eiffel"]),
    ]),
    question: { ...EVIDENCE, requires_tools: ["calculator"] },
    label: "tool_error",
  },
  {
    name: "a required tool that failed once and then worked is not tool_error",
    line: line({}, [
      tool("calculator", [], true),
      tool("calculator", []),
      tool("search", ["eiffel"]),
    ]),
    question: { ...EVIDENCE, requires_tools: ["calculator"] },
    label: "generation_miss",
  },
  {
    name: "a required tool never called is not tool_error",
    line: line({}, [tool("search", ["eiffel"])]),
    question: { ...EVIDENCE, requires_tools: ["calculator"] },
    label: "generation_miss",
  },
  {
    name: "a cap that stopped the agent is budget_exhausted, even with evidence unseen",
    line: line({ flags: { best_effort: true, budget_exhausted: true, format_error: false } }),
    question: EVIDENCE,
    label: "budget_exhausted",
  },
  {
    name: "the question timeout is budget_exhausted",
    line: line({ error: { kind: "timeout", message: "took longer than 5 s" } }),
    question: EVIDENCE,
    label: "budget_exhausted",
  },
  {
    name: "the step limit alone (best effort, no cap) is not budget_exhausted",
    line: line({ flags: { best_effort: true, budget_exhausted: false, format_error: false } }),
    question: EVIDENCE,
    label: "retrieval_miss",
  },
  {
    name: "no valid final answer is format_error, above the retrieval labels",
    line: line({ flags: { best_effort: true, budget_exhausted: false, format_error: true } }),
    question: EVIDENCE,
    label: "format_error",
  },
  {
    name: "evidence never retrieved or read is retrieval_miss",
    line: line({}, [tool("search", ["tokyo"]), tool("read_document", ["tokyo"])]),
    question: EVIDENCE,
    label: "retrieval_miss",
  },
  {
    name: "evidence only in a failed call's data does not count as seen",
    line: line({}, [tool("search", ["eiffel"], true)]),
    question: EVIDENCE,
    label: "retrieval_miss",
  },
  {
    name: "evidence seen in a tool result and a wrong answer is generation_miss",
    line: line({}, [tool("search", ["tokyo", "eiffel"])]),
    question: EVIDENCE,
    label: "generation_miss",
  },
  {
    name: "evidence seen in the system's own retrieval counts too",
    line: line({}, [retrieval(["tokyo", "eiffel"])]),
    question: EVIDENCE,
    label: "generation_miss",
  },
  {
    name: "a wrong answer to a question without evidence is other",
    line: line({}, [tool("search", ["tokyo"])]),
    question: {},
    label: "other",
  },
  {
    name: "an internal error is other",
    line: line({ error: { kind: "internal", message: "TypeError: x" } }),
    question: EVIDENCE,
    label: "other",
  },
];

for (const c of cases) {
  Deno.test(`failure label: ${c.name}`, () => {
    assert.equal(failureLabel(c.line, c.question), c.label);
  });
}

Deno.test("failure label: a system that cannot retrieve (closed_book) never misses a retrieval", () => {
  // A wrong closed-book answer to a question with evidence: what it knows, not a retrieval miss.
  assert.equal(failureLabel(line(), EVIDENCE, { canRetrieve: false }), "other");
  // The labels before it still apply; and a system that can retrieve and did not is a miss.
  assert.equal(
    failureLabel(line({ error: { kind: "model", message: "down" } }), EVIDENCE, {
      canRetrieve: false,
    }),
    "model_error",
  );
  assert.equal(failureLabel(line(), EVIDENCE, { canRetrieve: true }), "retrieval_miss");
});
