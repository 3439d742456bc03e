import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { REGISTRIES } from "../../lib/plan/setup.ts";
import { parseConfig } from "../../lib/config/load.ts";
import { ConfigError } from "../../lib/errors.ts";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

Deno.test("grep_agent: a tools: list is refused at load, saying why", () => {
  assert.throws(
    () =>
      parseConfig(
        "name: t\ncorpus: c.json\nquestions: q.yaml\nsystems:\n  - {type: grep_agent, tools: [calculator]}\n",
        { file: "g.yaml", absolute: "/p/g.yaml" },
        REGISTRIES,
      ),
    (error) =>
      error instanceof ConfigError &&
      error.message.startsWith(
        'Cannot load config "g.yaml" (line 5, column 24): system type "grep_agent" takes no tools: it is index-free and its tools are fixed (list_documents, corpus_grep, read_document) — remove its tools: list, or use a system that accepts tools (agent_search, code_agent, custom, ai_sdk, langgraph, openai_agents, mastra, llamaindex)',
      ),
  );
});

Deno.test("grep_agent on all.yaml --mock: only its three tools, no search; greps and reads its way to every single-hop item", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    join(ROOT, "configs/all.yaml"),
    "--mock",
    "--systems",
    "grep_agent",
    "--out",
    out,
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const usage = parse(Deno.readTextFileSync(join(out, "tool_usage.csv")), {
    columns: true,
  }) as Array<
    Record<string, string>
  >;
  assert.deepEqual(usage.map((r) => r.tool), ["list_documents", "corpus_grep", "read_document"]);
  assert.ok(usage.every((r) => r.errors === "0"), "no tool call errored");
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const single = lines.filter((l) => l.kind === "single_hop");
  assert.equal(single.length, 9);
  for (const line of single) {
    assert.equal(line.passed, true, line.question_id);
    const tools = line.steps.filter((s): s is ToolStep => s.type === "tool").map((s) => s.tool);
    assert.deepEqual(tools, ["corpus_grep", "read_document"], line.question_id);
    assert.equal(line.retrieval.mrr, 1, `${line.question_id}: grep found the evidence first`);
  }
  assert.ok(lines.filter((l) => l.kind === "multi_hop").every((l) => !l.passed));
});

Deno.test("all.yaml --mock: the indexed agents never make grep_agent's fallback calls", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    join(ROOT, "configs/all.yaml"),
    "--mock",
    "--systems",
    "agent_all_tools",
    "--limit",
    "9",
    "--out",
    out,
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  for (const line of lines) {
    const tools = line.steps.filter((s): s is ToolStep => s.type === "tool").map((s) => s.tool);
    assert.deepEqual(tools, ["search"], line.question_id);
  }
});
