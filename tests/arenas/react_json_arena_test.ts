import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const TOOLS = "[calculator, date_calc, corpus_grep, lookup_table, list_documents, read_document]";

Deno.test("both arenas under --mock: react_json makes the same tool calls and answers as native function calling", async () => {
  await using t = await tempTree({
    "c.yaml": `name: modes
corpus: [${ROOT}arenas/rag/corpus.json, ${ROOT}arenas/tools/corpus]
questions: [${ROOT}arenas/rag/questions.yaml, ${ROOT}arenas/tools/questions.yaml]
mock_script: [${ROOT}arenas/rag/mock.yaml, ${ROOT}arenas/tools/mock.yaml]
systems:
  - {type: agent_search, name: native, tools: ${TOOLS}}
  - {type: agent_search, name: react, agent_mode: react_json, tools: ${TOOLS}}
`,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const calls = (l: QuestionResult) =>
    l.steps.filter((s): s is ToolStep => s.type === "tool").map((
      s,
    ) => [s.tool, s.args, s.result.error]);
  const native = lines.filter((l) => l.system === "native");
  const react = lines.filter((l) => l.system === "react");
  assert.equal(react.length, 21);
  for (const [i, line] of react.entries()) {
    assert.equal(line.format_errors, 0, line.question_id);
    assert.equal(line.answer, native[i].answer, line.question_id);
    assert.equal(line.passed, native[i].passed, line.question_id);
    assert.deepEqual(calls(line), calls(native[i]), line.question_id);
  }
  assert.ok(react.every((l) => l.passed));
});
