import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { ModelStep, QuestionResult, ToolStep } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import {
  chatCompletion,
  type FakeReply,
  startBlackHoleServer,
  startFakeOpenAIServer,
} from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

const QUESTIONS =
  `- {id: q1, question: "How tall is the Eiffel Tower?", evidence: [eiffel_tower], checks: [{type: numeric_equals, value: 330}]}
`;

/** A run of one agent_search (mode `mode`) over one question against `baseUrl`; returns its one line. */
async function runAgainst(
  baseUrl: string,
  options: { mode?: "native" | "react_json"; evaluation?: string; timeout_s?: number } = {},
): Promise<{ code: number; stderr: string; line: QuestionResult }> {
  await using t = await tempTree({
    "c.yaml": `name: bad
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
model: {name: test-model, base_url: "${baseUrl}", api_key_env: null, max_retries: 0, timeout_s: ${
      options.timeout_s ?? 5
    }}
evaluation: {concurrency: 1${options.evaluation ?? ""}}
systems:
  - {type: agent_search, name: agent, agent_mode: ${options.mode ?? "native"}, max_steps: 4}
`,
    "q.yaml": QUESTIONS,
  });
  const out = join(t.dir, "run");
  // --cache off: hermetic, nothing recorded under ~/.cache.
  const result = await runCli(["run", t.path("c.yaml"), "--out", out, "--quiet", "--cache", "off"]);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  assert.equal(lines.length, 1, result.stderr);
  return { code: result.code, stderr: result.stderr, line: lines[0] };
}

function replies(...list: FakeReply[]) {
  return startFakeOpenAIServer(list);
}

const ANSWER = { json: chatCompletion({ content: "It is 330 metres tall [eiffel_tower]." }) };

Deno.test("bad model input: a tool name that does not exist becomes an unknown_tool observation, and the agent answers", async () => {
  await using server = replies(
    { json: chatCompletion({ tool_calls: [{ id: "a", name: "__proto__", arguments: "{}" }] }) },
    ANSWER,
  );
  const { line } = await runAgainst(server.baseUrl);
  assert.equal(line.error, null);
  const tool = line.steps.find((s): s is ToolStep => s.type === "tool")!;
  assert.equal(tool.result.error?.kind, "unknown_tool");
  assert.equal(line.passed, true);
  const second = server.requests[1].body as { messages: Array<{ role: string; content: string }> };
  assert.match(
    second.messages.at(-1)!.content,
    /^Error \(unknown_tool\): No tool named "__proto__"/,
  );
});

Deno.test("bad model input: tool arguments that are not JSON become an invalid_args observation", async () => {
  await using server = replies(
    {
      json: chatCompletion({
        tool_calls: [{ id: "a", name: "search", arguments: '{"query": "eif' }],
      }),
    },
    ANSWER,
  );
  const { line } = await runAgainst(server.baseUrl);
  assert.equal(line.error, null);
  const tool = line.steps.find((s): s is ToolStep => s.type === "tool")!;
  assert.equal(tool.result.error?.kind, "invalid_args");
  assert.equal(tool.args, '{"query": "eif');
  assert.equal(line.passed, true);
});

Deno.test("bad model input: an empty reply is an empty answer (native) and a format error the model recovers from (react_json)", async () => {
  {
    await using server = replies({ json: chatCompletion({ content: "" }) });
    const { line } = await runAgainst(server.baseUrl);
    assert.equal(line.error, null);
    assert.equal(line.answer, "");
    assert.equal(line.passed, false);
    assert.equal(line.failure_label, "retrieval_miss");
  }
  {
    await using server = replies(
      { json: chatCompletion({ content: "" }) },
      { json: chatCompletion({ content: '{"answer": "330 metres [eiffel_tower]"}' }) },
    );
    const { line } = await runAgainst(server.baseUrl, { mode: "react_json" });
    assert.equal(line.error, null);
    assert.equal(line.format_errors, 1);
    assert.equal(line.answer, "330 metres [eiffel_tower]");
    const second = server.requests[1].body as {
      messages: Array<{ role: string; content: string }>;
      tools?: unknown;
    };
    assert.equal(second.tools, undefined, "react_json sends no tools");
    assert.match(second.messages.at(-1)!.content, /^Invalid action: the reply was empty\./);
  }
});

Deno.test("bad model input: a 5 MB reply is recorded and scored, not a crash; react_json sends back only its start", async () => {
  const huge = `It is 330 metres tall. ${"blah ".repeat(1_000_000)}`;
  {
    await using server = replies({ json: chatCompletion({ content: huge }) });
    const { line } = await runAgainst(server.baseUrl);
    assert.equal(line.error, null);
    assert.equal(line.answer?.length, huge.length);
    assert.equal(line.passed, true);
  }
  {
    await using server = replies(
      { json: chatCompletion({ content: huge }) },
      { json: chatCompletion({ content: '{"answer": "330 metres"}' }) },
    );
    const { line } = await runAgainst(server.baseUrl, { mode: "react_json" });
    assert.equal(line.format_errors, 1);
    assert.equal((line.steps[0] as ModelStep).content?.length, huge.length);
    const sent = JSON.stringify(server.requests[1].body).length;
    assert.ok(sent < 100_000, `the second request re-sent ${sent} characters`);
  }
});

Deno.test("bad model input: a model that hangs is stopped by the question timeout, even with a longer model timeout", async () => {
  await using server = startBlackHoleServer();
  const { line } = await runAgainst(server.baseUrl, {
    timeout_s: 60,
    evaluation: ", question_timeout_s: 0.5",
  });
  assert.equal(line.error?.kind, "timeout");
  // The question's limit ended it, not the model's own 60 s one.
  assert.match(line.error!.message, /took longer than 0\.5 s \(evaluation\.question_timeout_s\)/);
  assert.equal(line.failure_label, "budget_exhausted");
});
