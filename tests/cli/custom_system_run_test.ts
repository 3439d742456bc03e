import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

Deno.test("the worked custom system runs the rag arena in --mock as rag does, citing what it answers from", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    join(ROOT, "configs/custom_system.yaml"),
    "--mock",
    "--out",
    out,
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const mine = lines.filter((l) => l.system === "my_system");
  const rag = new Map(lines.filter((l) => l.system === "rag").map((l) => [l.question_id, l]));
  assert.equal(mine.length, 15);
  for (const line of mine) {
    assert.equal(line.error, null);
    // The same retrieval and the same grounded prompt as rag: the same answer and score.
    assert.equal(line.answer, rag.get(line.question_id)!.answer);
    assert.equal(line.answer_score, rag.get(line.question_id)!.answer_score);
    assert.deepEqual(line.retrieval.ranking, rag.get(line.question_id)!.retrieval.ranking);
    const bracketed = [...line.answer!.matchAll(/\[([^\]\s]+)\]/g)].map((m) => m[1]);
    assert.deepEqual(line.cited, [...new Set(bracketed)]);
  }
  assert.ok(mine.some((l) => l.cited!.length > 0));
  const manifest = JSON.parse(Deno.readTextFileSync(join(out, "run.json")));
  assert.ok(
    manifest.inputs.custom_tools.some((d: { path: string }) =>
      d.path.endsWith("examples/custom_system/my_system.ts")
    ),
  );
});

Deno.test("the worked custom system runs live against a loopback chat server (a 500 retried)", async () => {
  let calls = 0;
  await using server = startFakeOpenAIServer(() => {
    calls++;
    if (calls === 1) return { status: 500, json: { error: { message: "try again" } } };
    return {
      json: chatCompletion({
        content: "Mount Everest is 8,849 metres high [mount_everest].",
        usage: { prompt_tokens: 300, completion_tokens: 12 },
      }),
    };
  });
  await using t = await tempTree({
    "q.yaml": `- id: q1
  question: What is the elevation of Mount Everest in metres?
  checks: [{type: numeric_equals, value: 8849}]
  evidence: [mount_everest]
`,
    "c.yaml": `name: live
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
model: {name: test-model, base_url: "${server.baseUrl}", api_key_env: null, max_retries: 2, price: {input_per_mtok: 1, output_per_mtok: 2}}
systems:
  - type: custom
    name: my_system
    path: "${ROOT}examples/custom_system/my_system.ts#answer"
`,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const [line] = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  assert.equal(line.passed, true);
  assert.deepEqual(line.cited, ["mount_everest"]);
  assert.deepEqual(line.steps.map((s) => s.type), ["retrieval", "model"]);
  assert.deepEqual(line.usage, { input_tokens: 300, output_tokens: 12 });
  assert.equal(line.retrieval.metrics?.["recall@5"], 1);
  // The system's prompt reached the server: the passages it retrieved, then the question.
  const body = server.requests[1].body as { messages: Array<{ role: string; content: string }> };
  assert.match(body.messages[0].content, /\[1\] doc_id: mount_everest \| passage: /);
  assert.equal(body.messages[1].content, "What is the elevation of Mount Everest in metres?");
  assert.equal(server.requests.length, 2);
});
