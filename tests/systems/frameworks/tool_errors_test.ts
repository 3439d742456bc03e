import assert from "node:assert/strict";
import { readJsonl } from "../../../lib/report/jsonl.ts";
import type { ModelStep, QuestionResult, ToolStep } from "../../../lib/types.ts";
import { ROOT, runCli } from "../../support/cli.ts";
import {
  chatCompletion,
  type FakeReply,
  startFakeOpenAIServer,
} from "../../support/fake_openai_server.ts";
import {
  assertNoFrameworkProcess,
  comparableStep,
  FRAMEWORK_TYPES,
} from "../../support/frameworks.ts";
import { tempTree } from "../../support/temp.ts";

const QUESTIONS =
  `- {id: unknown, question: "Use the nope tool.", checks: [{type: contains, value: "x"}]}
- {id: badjson, question: "Search with broken arguments.", checks: [{type: contains, value: "x"}]}
`;

Deno.test("a call of a tool that does not exist, or with arguments that are not JSON: the model reads ragbench's canonical error in every framework that goes on, and the others fail the question alone", async () => {
  await using server = startFakeOpenAIServer((request): FakeReply => {
    const body = request.body as { messages: { role: string; content: string | null }[] };
    const result = body.messages.find((m) => m.role === "tool");
    if (result) return { json: chatCompletion({ content: `Saw: ${result.content}` }) };
    const unknown = JSON.stringify(body).includes("nope tool");
    return {
      json: chatCompletion({
        tool_calls: [
          unknown
            ? { id: "c1", name: "nope", arguments: '{"query":"x"}' }
            : { id: "c1", name: "search", arguments: "{bad" },
        ],
      }),
    };
  });
  await using t = await tempTree({
    "q.yaml": QUESTIONS,
    "c.yaml": `name: tool_errors
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
model: {name: gpt-4o-mini, base_url: "${server.baseUrl}", api_key_env: null, max_retries: 0}
systems:
  - {type: agent_search, name: agent_search}
${FRAMEWORK_TYPES.map((type) => `  - {type: ${type}, name: ${type}}`).join("\n")}
`,
  });
  try {
    const result = await runCli([
      "run",
      t.path("c.yaml"),
      "--cache",
      "off",
      "--out",
      t.path("o"),
      "--quiet",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const lines = await readJsonl(t.path("o/per_question_results.jsonl")) as QuestionResult[];
    const line = (system: string, id: string) =>
      lines.find((l) => l.system === system && l.question_id === id)!;
    const unknown = line("agent_search", "unknown");
    assert.match(unknown.answer!, /^Saw: Error \(unknown_tool\): No tool named "nope"/);
    const bad = line("agent_search", "badjson");
    assert.match(bad.answer!, /^Saw: Error \(invalid_args\)/);
    for (const type of FRAMEWORK_TYPES) {
      for (const peer of [unknown, bad]) {
        const own = line(type, peer.question_id);
        const where = `${type} ${peer.question_id}`;
        if (peer === unknown && (type === "openai_agents" || type === "llamaindex")) {
          // These two stop on a tool they do not have: the question fails, the run goes on.
          assert.equal(own.error?.kind, "system", where);
          assert.match(own.error!.message, /not found|does not have/, where);
          continue;
        }
        assert.equal(own.error, null, where);
        assert.equal(own.answer, peer.answer, where);
        assert.deepEqual(own.steps.map(comparableStep), peer.steps.map(comparableStep), where);
        // What the framework had told the model instead is kept on the model step.
        const restored = own.steps.flatMap((s) => (s as ModelStep).restored ?? []);
        const tool = own.steps.find((s): s is ToolStep => s.type === "tool")!;
        assert.ok(tool.result.error, where);
        if (type !== "llamaindex" || peer === unknown) {
          assert.equal(restored.length, 1, where);
          assert.equal(restored[0].tool_call_id, "c1");
          assert.doesNotMatch(restored[0].framework_text, /^Error \((unknown_tool|invalid_args)\)/);
        }
      }
    }
  } finally {
    await assertNoFrameworkProcess();
  }
});
