import assert from "node:assert/strict";
import {
  recommend,
  type RecommendationSystem,
  TOOL_CUT_WARNING,
} from "../../../lib/report/recommendation.ts";
import { runStats } from "../../../lib/score/comparison.ts";

function sys(tool_cuts: RecommendationSystem["tool_cuts"]): RecommendationSystem {
  return {
    system: "agent",
    model: "mock:m",
    questions: 10,
    errors: 0,
    cost_per_question: null,
    p50_latency_ms: null,
    best_effort_rate: 0,
    budget_exhausted: 0,
    network_tools: [],
    tool_cuts,
  };
}

Deno.test("a tool is warned about when more than 10 % of its calls were cut, each tool on its own", () => {
  assert.equal(TOOL_CUT_WARNING, 0.1);
  const stats = runStats(["agent"], []);
  const { warnings, lines } = recommend([
    sys([
      { tool: "search", calls: 10, truncated: 1 }, // 10 %: not more than the threshold
      { tool: "corpus_grep", calls: 9, truncated: 1 }, // 11 %
      { tool: "read_document", calls: 0, truncated: 0 },
    ]),
  ], stats);
  assert.deepEqual(warnings, [
    "agent: corpus_grep output was cut to tools.max_output_chars in 1 of 9 calls (11 %); the " +
    "model read only part of it (only what it read counts as retrieved): raise tools.max_output_chars",
  ]);
  assert.ok(lines.some((l) => l.includes(warnings[0])));
});
