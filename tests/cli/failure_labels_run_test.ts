import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const QUESTIONS = `- id: cap
  question: "CAP: how tall is the Eiffel Tower?"
  evidence: [eiffel_tower]
  checks: [{type: numeric_equals, value: 330}]
- id: fmt
  question: "FMT: how tall is the Eiffel Tower?"
  evidence: [eiffel_tower]
  checks: [{type: numeric_equals, value: 330}]
- id: miss
  question: "MISS: how tall is the Eiffel Tower?"
  evidence: [eiffel_tower]
  checks: [{type: numeric_equals, value: 330}]
- id: gen
  question: "GEN: how tall is the Eiffel Tower?"
  evidence: [eiffel_tower]
  checks: [{type: numeric_equals, value: 330}]
- id: ok
  question: "OK: how tall is the Eiffel Tower?"
  evidence: [eiffel_tower]
  checks: [{type: numeric_equals, value: 330}]
`;

const MOCK = `"CAP:":
  - {call: search, args: {query: Eiffel Tower height}}
  - {call: search, args: {query: Eiffel Tower metres}}
  - {answer: "I ran out of budget."}
"FMT:":
  - {raw: "The tower is tall."}
  - {raw: "Still not JSON."}
  - {raw: "Nor this."}
  - {raw: "Nor this."}
  - {answer: "never reached"}
"MISS:":
  - {call: search, args: {query: Mount Everest}}
  - {answer: "I cannot find it."}
"GEN:":
  - {call: search, args: {query: Eiffel Tower height}}
  - {answer: "It is 300 metres tall."}
"OK:":
  - {call: search, args: {query: Eiffel Tower height}}
  - {answer: "It is 330 metres tall [eiffel_tower]."}
`;

Deno.test("failure labels on purpose-built mock scripts: budget, format, retrieval and generation misses, counted per system", async () => {
  await using t = await tempTree({
    "c.yaml": `name: labels
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
mock_script: mock.yaml
systems:
  - {type: agent_search, name: capped, max_tool_calls: 1}
  - {type: agent_search, name: plain}
  - {type: agent_search, name: react, agent_mode: react_json, max_steps: 3}
`,
    "q.yaml": QUESTIONS,
    "mock.yaml": MOCK,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const label = (system: string, id: string) =>
    lines.find((l) => l.system === system && l.question_id === id)!.failure_label;
  assert.equal(label("capped", "cap"), "budget_exhausted");
  assert.equal(label("plain", "cap"), "generation_miss");
  assert.equal(label("plain", "miss"), "retrieval_miss");
  assert.equal(label("plain", "gen"), "generation_miss");
  assert.equal(label("plain", "ok"), null);
  assert.equal(label("react", "fmt"), "format_error");
  assert.equal(label("react", "ok"), null);
  const fmt = lines.find((l) => l.system === "react" && l.question_id === "fmt")!;
  assert.equal(fmt.format_errors, 3);
  assert.equal(fmt.answer, null);
  assert.deepEqual(fmt.flags, { best_effort: true, budget_exhausted: false, format_error: true });
  const rows = parse(Deno.readTextFileSync(join(out, "metrics_summary.csv")), {
    columns: true,
  }) as Array<Record<string, string>>;
  const plain = rows.find((r) => r.system === "plain")!;
  assert.deepEqual(
    [
      plain.failures_budget_exhausted,
      plain.failures_retrieval_miss,
      plain.failures_generation_miss,
      plain.failures_format_error,
      plain.failures_other,
    ],
    ["0", "2", "2", "0", "0"],
  );
  assert.equal(rows.find((r) => r.system === "capped")!.failures_budget_exhausted, "3");
  const react = rows.find((r) => r.system === "react")!;
  assert.equal(react.failures_format_error, "1");
  assert.equal(react.format_errors, "3");
});

Deno.test("a closed_book system's wrong answers are never retrieval_miss: it cannot retrieve", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const config = join(ROOT, "configs/rag.yaml");
  const result = await runCli(["run", config, "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const closed = lines.filter((l) => l.system === "closed_book" && l.passed === false);
  assert.ok(closed.length > 5, `${closed.length} failed closed_book lines`);
  assert.deepEqual([...new Set(closed.map((l) => l.failure_label))], ["other"]);
  // The agent beside it, which can search, still gets retrieval labels where they apply.
  const rows = parse(Deno.readTextFileSync(join(out, "metrics_summary.csv")), {
    columns: true,
  }) as Array<Record<string, string>>;
  assert.equal(rows.find((r) => r.system === "closed_book")!.failures_retrieval_miss, "0");
});
