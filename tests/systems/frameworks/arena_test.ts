import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../../lib/types.ts";
import { ROOT, runCli } from "../../support/cli.ts";
import {
  assertNoFrameworkProcess,
  comparableLine,
  comparableStep,
  FRAMEWORK_TYPES,
} from "../../support/frameworks.ts";
import { tempTree } from "../../support/temp.ts";

const CONFIG = join(ROOT, "configs/frameworks.yaml");

async function mockRun(out: string): Promise<QuestionResult[]> {
  const result = await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  return await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
}

function searches(line: QuestionResult): ToolStep[] {
  return line.steps.filter((s): s is ToolStep => s.type === "tool" && s.tool === "search");
}

Deno.test("configs/frameworks.yaml under --mock: every framework scores 15/15 on the rag arena, on agent_search's trace, and two runs agree", async () => {
  await using t = await tempTree();
  try {
    const lines = await mockRun(t.path("a"));
    const agent = new Map(
      lines.filter((l) => l.system === "agent_search").map((l) => [l.question_id, l]),
    );
    assert.equal(agent.size, 15);
    for (const type of FRAMEWORK_TYPES) {
      const own = lines.filter((l) => l.system === type);
      assert.equal(own.length, 15, type);
      assert.equal(own.filter((l) => l.passed).length, 15, `${type} passes every item`);
      for (const line of own) {
        const where = `${type} ${line.question_id}`;
        assert.equal(line.error, null, where);
        assert.ok(
          line.steps.every((s) => s.type !== "tool" || s.result.error === null),
          `${where}: no tool call failed`,
        );
        if (line.kind === "multi_hop") {
          const [a, b, more] = searches(line).map((s) => JSON.stringify(s.args));
          assert.ok(a && b && more === undefined, `${where}: exactly two searches`);
          assert.notEqual(a, b, `${where}: with different queries`);
        }
        if (line.kind === "unanswerable") {
          assert.ok(line.checks.find((c) => c.type === "iregex")?.passed, `${where}: refuses`);
        }
        // The same trace as agent_search: steps, answer, flags, usage and cost.
        const peer = agent.get(line.question_id)!;
        assert.deepEqual(line.steps.map(comparableStep), peer.steps.map(comparableStep), where);
        assert.deepEqual(
          [line.answer, line.flags, line.usage, line.cost_usd],
          [peer.answer, peer.flags, peer.usage, peer.cost_usd],
          where,
        );
      }
    }
    const again = await mockRun(t.path("b"));
    assert.deepEqual(again.map(comparableLine), lines.map(comparableLine));
  } finally {
    await assertNoFrameworkProcess();
  }
});
