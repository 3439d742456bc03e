import assert from "node:assert/strict";
import { redundantSearches, trajectoryScores } from "../../../lib/score/trajectory.ts";
import type { JsonValue, ModelStep, Step, ToolStep } from "../../../lib/types.ts";

function call(tool: string, args: JsonValue, docs: string[], error = false): ToolStep {
  return {
    type: "tool",
    tool,
    call_id: "c",
    args,
    result: {
      output: "",
      data: { results: docs.map((doc_id) => ({ doc_id })) },
      error: error ? { kind: "timeout", message: "slow" } : null,
      truncated: false,
      cost_usd: 0,
      latency_ms: 1,
    },
  };
}

const MODEL: ModelStep = {
  type: "model",
  usage: { input_tokens: 1, output_tokens: 1 },
  cost_usd: 0,
  latency_ms: 1,
  content: null,
  tool_calls: [],
  final: false,
};

Deno.test("redundant searches: a repeated normalised query is redundant even when it finds new documents", () => {
  const steps: Step[] = [
    call("search", { query: "Eiffel  Tower" }, ["a"]),
    call("search", { query: " eiffel tower " }, ["b"]),
  ];
  assert.deepEqual(redundantSearches(steps), { searches: 2, redundant: 1 });
});

Deno.test("redundant searches: a search listing only documents already seen is redundant", () => {
  const steps: Step[] = [
    call("search", { query: "one" }, ["a", "b"]),
    call("read_document", { doc_id: "c" }, ["c"]),
    call("corpus_grep", { pattern: "two" }, ["c", "a"]),
    call("search", { query: "three" }, ["a", "d"]),
  ];
  assert.deepEqual(redundantSearches(steps), { searches: 3, redundant: 1 });
});

Deno.test("redundant searches: an empty result is a miss, not redundant; failed calls are not searches", () => {
  const steps: Step[] = [
    call("search", { query: "one" }, []),
    call("search", { query: "two" }, ["a"], true),
    call("search", { query: "two" }, ["a"]),
  ];
  assert.deepEqual(redundantSearches(steps), { searches: 2, redundant: 0 });
});

Deno.test("redundant searches: grep keys by its regex flag; the same text in search and grep is not a repeat", () => {
  const steps: Step[] = [
    call("corpus_grep", { pattern: "tower" }, ["a"]),
    call("corpus_grep", { pattern: "tower", regex: true }, ["b"]),
    call("search", { query: "tower" }, ["c"]),
    call("corpus_grep", { pattern: "TOWER" }, ["d"]),
  ];
  assert.deepEqual(redundantSearches(steps), { searches: 4, redundant: 1 });
});

Deno.test("trajectory: steps_to_evidence counts the model calls before evidence first surfaced", () => {
  const steps: Step[] = [
    MODEL,
    call("search", { query: "x" }, ["other"]),
    MODEL,
    call("search", { query: "y" }, ["eiffel"]),
    MODEL,
  ];
  const t = trajectoryScores(steps, { evidence: [{ id: "eiffel" }] });
  assert.equal(t.steps_to_evidence, 2);
  assert.equal(t.scored_searches, 2);
  assert.equal(t.redundant_searches, 0);
  assert.equal(trajectoryScores(steps, {}).steps_to_evidence, null);
});
