import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const QUESTIONS = `- id: q1
  question: How tall is the Eiffel Tower in metres?
  evidence: [eiffel_tower]
  checks: [{type: numeric_equals, value: 330}]
- id: q2
  question: How deep is Lake Baikal?
  evidence: [lake_baikal]
  checks: [{type: numeric_equals, value: 1642}]
`;

Deno.test("a tool whose outputs were cut in over 10 % of its calls is warned about on the console, in summary.md and in recommendation.json", async () => {
  await using t = await tempTree({
    "c.yaml": `name: cuts
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
tools: {max_output_chars: 300}
systems:
  - {type: rag, name: rag}
  - {type: agent_search, name: agent}
`,
    "q.yaml": QUESTIONS,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const searches = lines.flatMap((l) =>
    l.steps.filter((s) => s.type === "tool" && s.tool === "search")
  );
  assert.equal(searches.length, 2);
  assert.ok(searches.every((s) => s.type === "tool" && s.result.truncated));
  const warning =
    "agent: search output was cut to tools.max_output_chars in 2 of 2 calls (100 %); the model " +
    "read only part of it (only what it read counts as retrieved): raise tools.max_output_chars";
  assert.ok(result.stdout.includes(`warning: ${warning}`), result.stdout);
  assert.ok(Deno.readTextFileSync(join(out, "summary.md")).includes(warning));
  const recommendation = JSON.parse(Deno.readTextFileSync(join(out, "recommendation.json")));
  assert.ok(recommendation.warnings.includes(warning), recommendation.warnings);
  // The system that calls no tool is not warned about.
  assert.ok(!result.stdout.includes("warning: rag:"), result.stdout);
});
