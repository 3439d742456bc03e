import assert from "node:assert/strict";
import { readJsonl } from "../../../lib/report/jsonl.ts";
import type { ModelStep, QuestionResult } from "../../../lib/types.ts";
import { runCli } from "../../support/cli.ts";
import {
  assertNoFrameworkProcess,
  comparableStep,
  FRAMEWORK_TYPES,
  frameworksConfig,
} from "../../support/frameworks.ts";
import { tempTree } from "../../support/temp.ts";

/**
 * Runs the rag arena with agent_search and every framework under `keys` and
 * checks that each framework stops where agent_search stops, with the same
 * final answer call, steps and flags. Returns agent_search's lines.
 */
async function atCap(keys: string): Promise<QuestionResult[]> {
  await using t = await tempTree({ "c.yaml": frameworksConfig({ keys }) });
  try {
    const result = await runCli([
      "run",
      t.path("c.yaml"),
      "--mock",
      "--out",
      t.path("o"),
      "--quiet",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const lines = await readJsonl(t.path("o/per_question_results.jsonl")) as QuestionResult[];
    const agent = lines.filter((l) => l.system === "agent_search");
    for (const type of FRAMEWORK_TYPES) {
      const own = new Map(lines.filter((l) => l.system === type).map((l) => [l.question_id, l]));
      for (const peer of agent) {
        const line = own.get(peer.question_id)!;
        const where = `${keys}: ${type} ${peer.question_id}`;
        assert.equal(line.error, null, where);
        assert.deepEqual(line.steps.map(comparableStep), peer.steps.map(comparableStep), where);
        assert.deepEqual([line.answer, line.flags], [peer.answer, peer.flags], where);
      }
    }
    return agent;
  } finally {
    await assertNoFrameworkProcess();
  }
}

function finalCalls(line: QuestionResult): number {
  return line.steps.filter((s) => s.type === "model" && (s as ModelStep).final).length;
}

Deno.test("max_steps: every framework asks for the final answer where agent_search does, best effort and not a budget", async () => {
  const agent = await atCap("max_steps: 2");
  const stopped = agent.filter((l) => l.flags.best_effort);
  assert.equal(stopped.length, 15, "every item searches first; the second turn is the last");
  for (const line of stopped) {
    assert.equal(line.flags.budget_exhausted, false);
    assert.equal(finalCalls(line), 1);
    assert.equal(line.steps.filter((s) => s.type === "model").length, 2);
  }
});

Deno.test("max_tool_calls, max_tokens and max_cost_usd: every framework stops where agent_search does, flagged budget_exhausted", async () => {
  for (const keys of ["max_tool_calls: 1", "max_tokens: 200", "max_cost_usd: 0.00004"]) {
    const agent = await atCap(keys);
    const stopped = agent.filter((l) => l.flags.budget_exhausted);
    assert.ok(stopped.length >= 3, `${keys}: ${stopped.length} questions stopped`);
    for (const line of stopped) {
      assert.equal(line.flags.best_effort, true, keys);
      assert.equal(finalCalls(line), 1, keys);
    }
  }
});
