import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

/** configs/rag.yaml with a code_agent beside its systems (paths made absolute). */
function configWithCodeAgent(): string {
  return Deno.readTextFileSync(join(ROOT, "configs/rag.yaml"))
    .replaceAll("../arenas/", join(ROOT, "arenas") + "/")
    .trimEnd() + "\n  - { type: code_agent, name: code_agent, tools: [] }\n";
}

const toolCalls = (line: QuestionResult) =>
  line.steps.filter((s): s is ToolStep => s.type === "tool").map((s) => ({
    tool: s.tool,
    args: s.args,
    error: s.result.error,
  }));

Deno.test("rag arena under --mock: code_agent 15/15 on the same tool calls as agent_search, two searches per multi-hop item", async () => {
  await using t = await tempTree({ "rag.yaml": configWithCodeAgent() });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("rag.yaml"), "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const code = lines.filter((l) => l.system === "code_agent");
  const agent = new Map(
    lines.filter((l) => l.system === "agent_search").map((l) => [l.question_id, l]),
  );
  assert.equal(code.length, 15);
  assert.equal(code.filter((l) => l.passed).length, 15);
  for (const line of code) {
    const calls = toolCalls(line);
    assert.ok(calls.every((c) => c.error === null), `${line.question_id}: no tool call errored`);
    assert.deepEqual(calls, toolCalls(agent.get(line.question_id)!), line.question_id);
    assert.equal(line.format_errors, 0);
    assert.equal(line.flags.format_error, false);
    assert.equal(line.answer, agent.get(line.question_id)!.answer);
    assert.deepEqual(line.retrieval.recall, agent.get(line.question_id)!.retrieval.recall);
  }
  for (const line of code.filter((l) => l.kind === "multi_hop")) {
    const searches = toolCalls(line).filter((c) => c.tool === "search");
    assert.equal(searches.length, 2, line.question_id);
    assert.notDeepEqual(searches[0].args, searches[1].args, line.question_id);
  }
  assert.match(result.stdout, /code_agent\s+15\s+1\.000\s+\[1\.000, 1\.000\]\s+15\/15/);
});
