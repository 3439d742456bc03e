import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../lib/plan/setup.ts";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/all.yaml");

Deno.test("tools arena: six tool items with requires_tools, a products table, merged with the rag arena", async () => {
  const { corpus, questions, config } = await loadRun(CONFIG, { mock: true });
  const tools = questions.filter((q) => q.kind === "tool");
  assert.equal(tools.length, 6);
  assert.equal(questions.length, 21);
  assert.ok(tools.every((q) => (q.requires_tools ?? []).length > 0));
  const required = new Set(tools.flatMap((q) => q.requires_tools ?? []));
  assert.deepEqual([...required].sort(), [
    "calculator",
    "corpus_grep",
    "date_calc",
    "lookup_table",
  ]);
  assert.deepEqual(corpus.tables.map((t) => t.source), ["products.csv"]);
  assert.deepEqual(
    config.systems.find((s) => s.name === "agent_with_tools")?.tools.map((t) => t.name),
    [
      "calculator",
      "date_calc",
      "corpus_grep",
    ],
  );
  assert.deepEqual(config.systems.find((s) => s.name === "agent_search_only")?.tools, []);
});

Deno.test("all.yaml under --mock shows what each tool set buys on the tool items", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const passedTools = (system: string) =>
    lines.filter((l) => l.system === system && l.kind === "tool" && l.passed).map((l) =>
      l.question_id
    );
  assert.deepEqual(passedTools("closed_book"), []);
  assert.deepEqual(passedTools("agent_search_only"), ["tl06"]);
  assert.deepEqual(passedTools("agent_with_tools"), ["tl01", "tl02", "tl03", "tl06"]);
  assert.deepEqual(passedTools("agent_all_tools"), [
    "tl01",
    "tl02",
    "tl03",
    "tl04",
    "tl05",
    "tl06",
  ]);
  const summary = Deno.readTextFileSync(join(out, "metrics_summary.csv")).trim().split("\n").map((
    l,
  ) => l.split(","));
  const column = (name: string) => summary[0].indexOf(name);
  const rate = (system: string) =>
    summary.find((r) => r[0] === system)![column("required_tool_used_rate")];
  assert.equal(rate("agent_search_only"), "0");
  assert.equal(rate("agent_with_tools"), "0.666667");
  assert.equal(rate("agent_all_tools"), "1");
  const usage = Deno.readTextFileSync(join(out, "tool_usage.csv"));
  assert.match(
    usage,
    /^agent_all_tools,list_documents,0,0,,0,0,,0$/m,
    "offered but never called still gets a row",
  );
  assert.match(usage, /^agent_with_tools,calculator,2,0,0,0,2,/m);
});
