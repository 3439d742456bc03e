import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../lib/plan/setup.ts";
import type { Question } from "../../lib/data/question_schema.ts";
import { readJsonl } from "../../lib/report/jsonl.ts";
import { runChecks } from "../../lib/score/checks.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");

async function arena() {
  return await loadRun(CONFIG, { mock: true });
}

function byKind(questions: Question[], kind: string) {
  return questions.filter((q) => q.kind === kind);
}

Deno.test("rag arena: 27 passages, three carrying the multi-hop cross-references", async () => {
  const { corpus } = await arena();
  assert.equal(corpus.documents.length, 27);
  const text = (id: string) => corpus.documents.find((d) => d.id === id)!.text;
  assert.match(text("tokyo_tower"), /Eiffel Tower/);
  assert.match(text("taipei_101"), /Burj Khalifa/);
  assert.match(text("chrysler_building"), /Empire State Building/);
});

Deno.test("rag arena: 15 items — 9 single-hop, 3 multi-hop, 3 unanswerable — with the checks of their kind", async () => {
  const { questions } = await arena();
  assert.equal(questions.length, 15);
  const types = (q: Question) => q.checks.map((c) => c.type);
  for (const q of byKind(questions, "single_hop")) {
    assert.deepEqual(types(q), ["numeric_equals", "min_tool_calls"], q.id);
    assert.equal(q.checks[1].type === "min_tool_calls" && q.checks[1].value, 1);
  }
  for (const q of byKind(questions, "multi_hop")) {
    assert.deepEqual(types(q), ["numeric_equals", "icontains", "min_tool_calls"], q.id);
    assert.equal(q.checks[2].type === "min_tool_calls" && q.checks[2].value, 2);
    assert.equal(q.evidence?.length, 2);
  }
  for (const q of byKind(questions, "unanswerable")) {
    assert.deepEqual(types(q), ["iregex", "not_contains", "min_tool_calls"], q.id);
    assert.equal(q.evidence, undefined);
  }
  assert.deepEqual(
    [
      byKind(questions, "single_hop").length,
      byKind(questions, "multi_hop").length,
      byKind(questions, "unanswerable").length,
    ],
    [9, 3, 3],
  );
});

Deno.test("rag arena: a hallucinated answer to each unanswerable item fails on its not_contains trap", async () => {
  const { questions } = await arena();
  const search: ToolStep = {
    type: "tool",
    tool: "search",
    call_id: "c",
    args: { query: "x" },
    result: { output: "", error: null, truncated: false, cost_usd: 0, latency_ms: 0 },
  };
  for (const q of byKind(questions, "unanswerable")) {
    const trap = q.checks.find((c) => c.type === "not_contains");
    assert.ok(trap && trap.type === "not_contains");
    const hallucinated = `According to the documents, the answer is ${trap.value}.`;
    const results = runChecks(q.checks, hallucinated, [search]);
    const trapResult = results.find((r) => r.type === "not_contains")!;
    assert.equal(trapResult.passed, false, `${q.id}: the trap must catch "${hallucinated}"`);
    assert.ok(!results.every((r) => r.passed));
    const refusal = runChecks(q.checks, "I could not find that in the documents.", [search]);
    assert.ok(refusal.every((r) => r.passed), `${q.id}: a grounded refusal passes`);
  }
});

Deno.test("rag arena under --mock: agent_search 15/15, closed_book less; multi-hop items search twice with different queries", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli(["run", CONFIG, "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const agent = lines.filter((l) => l.system === "agent_search");
  const closed = lines.filter((l) => l.system === "closed_book");
  assert.equal(agent.length, 15);
  assert.equal(agent.filter((l) => l.passed).length, 15);
  assert.ok(closed.filter((l) => l.passed).length < 15);
  assert.ok(closed.reduce((s, l) => s + l.answer_score!, 0) < 15);
  for (const line of agent.filter((l) => l.kind === "multi_hop")) {
    const searches = line.steps.filter((s): s is ToolStep =>
      s.type === "tool" && s.tool === "search"
    );
    assert.equal(searches.length, 2, line.question_id);
    const [a, b] = searches.map((s) => JSON.stringify(s.args));
    assert.notEqual(a, b, `${line.question_id}: the two searches use different queries`);
    assert.equal(
      line.retrieval.recall,
      1,
      `${line.question_id}: both evidence passages were found`,
    );
  }
  for (const line of agent.filter((l) => l.kind === "single_hop")) {
    assert.equal(line.retrieval.mrr, 1, `${line.question_id}: the evidence passage ranks first`);
  }
  assert.match(result.stdout, /agent_search\s+15\s+1\.000\s+\[1\.000, 1\.000\]\s+15\/15/);
});

Deno.test("rag arena under --mock: rag (one BM25 retrieval, then the answer) scores 12/15, missing only the multi-hop second search", async () => {
  const arenaFile = (name: string) => join(ROOT, "arenas/rag", name);
  await using t = await tempTree({
    "c.yaml": `name: rag_only
corpus: ${arenaFile("corpus.json")}
questions: ${arenaFile("questions.yaml")}
mock_script: ${arenaFile("mock.yaml")}
systems:
  - {type: rag, name: rag}
`,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  // One retrieval of the question, then the scripted answer. Single-hop and unanswerable
  // items pass; multi-hop items answer right but fail min_tool_calls >= 2 (one retrieval).
  const rag = lines.filter((l) => l.system === "rag");
  assert.equal(rag.length, 15);
  for (const line of rag) {
    assert.deepEqual(line.steps.map((s) => s.type), ["retrieval", "model"], line.question_id);
    assert.equal(line.error, null);
    const failed = line.checks.filter((c) => !c.passed).map((c) => c.type);
    assert.deepEqual(failed, line.kind === "multi_hop" ? ["min_tool_calls"] : [], line.question_id);
  }
  for (const line of rag.filter((l) => l.kind === "single_hop")) {
    assert.equal(line.retrieval.recall, 1, `${line.question_id}: the evidence was retrieved`);
  }
  assert.match(result.stdout, /rag\s+15\s+0\.933\s+\[[^\]]+\]\s+12\/15/);
});
