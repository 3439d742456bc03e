/**
 * Repeats re-sample: with `evaluation.repeats` > 1 and the response cache on,
 * every repeat is sent live once and replayed from its own recording after.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import {
  chatCompletion,
  type FakeReply,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";

/**
 * An agent's model that searches once, then answers; every answer carries the
 * request's number, so no two requests get the same answer.
 */
function countingServer() {
  return startFakeOpenAIServer((request: RecordedRequest, index: number): FakeReply => {
    const body = request.body as { messages: { role: string; content: string }[]; tools?: [] };
    const searched = body.messages.some((m) => m.role === "tool");
    if (!searched && (body.tools ?? []).length > 0) {
      const question = body.messages.find((m) => m.role === "user")?.content ?? "";
      return {
        json: chatCompletion({
          tool_calls: [{
            id: "call_1",
            name: "search",
            arguments: JSON.stringify({ query: question.slice(0, 40) }),
          }],
          usage: { prompt_tokens: 20, completion_tokens: 5 },
        }),
      };
    }
    return {
      json: chatCompletion({
        content: `answer #${index + 1}`,
        usage: { prompt_tokens: 30, completion_tokens: 5 },
      }),
    };
  });
}

function config(baseUrl: string, extra = ""): string {
  return `name: repeats
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: test-model, base_url: "${baseUrl}", api_key_env: null, max_retries: 0,
  price: {input_per_mtok: 1, output_per_mtok: 2}}
evaluation: {repeats: 3}
${extra}systems:
  - {type: closed_book, name: closed_book}
  - {type: agent_search, name: agent}
`;
}

/** Answer of every line, by system, question and repeat. */
async function answers(dir: string): Promise<Map<string, string | null>> {
  const lines = await readJsonl(join(dir, RESULTS)) as QuestionResult[];
  return new Map(lines.map((l) => [`${l.system}/${l.question_id}/${l.repeat}`, l.answer]));
}

Deno.test("3 repeats send 3× the requests, and a re-run replays each repeat's own answers with 0 requests, whatever the concurrency", async () => {
  await using server = countingServer();
  await using t = await tempTree({ "c.yaml": config(server.baseUrl) });
  const common = ["--cache-dir", t.path("cache"), "--limit", "2"];
  const first = await runCli([
    "run",
    t.path("c.yaml"),
    "--concurrency",
    "4",
    "--out",
    t.path("a"),
    ...common,
  ]);
  assert.equal(first.code, 0, first.stderr);
  // 2 questions × 3 repeats × (closed_book 1 call + agent 2 calls).
  assert.equal(server.requests.length, 18);
  assert.match(first.stderr, /cache: model calls \(read-write\): 0 reused, 18 missed, 18 recorded/);
  const live = await answers(t.path("a"));
  assert.equal(live.size, 12);
  // Each repeat is its own sample: the stub answered each request differently.
  assert.equal(new Set(live.values()).size, 12);
  // The table counts questions × repeats, and has the flip rate of the verdicts between repeats.
  const header = first.stdout.split("\n").find((l) => l.startsWith("system "));
  assert.match(header ?? "", /^system +questions +score +95 % CI +accuracy +flip rate /);
  assert.match(first.stdout, /\nclosed_book +2 × 3 +[0-9.]+ +\[[^\]]+\] +\d+\/6 +\d+\.\d %/);

  const again = await runCli([
    "run",
    t.path("c.yaml"),
    "--concurrency",
    "1",
    "--out",
    t.path("b"),
    ...common,
  ]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(server.requests.length, 18, "a re-run sends nothing");
  assert.match(again.stderr, /cache: model calls \(read-write\): 18 reused, 0 missed, 0 recorded/);
  assert.deepEqual(await answers(t.path("b")), live);
});

/** A "network" tool whose every answer differs. */
const TOOL = `import { defineTool, z } from "ragbench/tool";
export const page = defineTool({
  name: "page",
  description: "Fetch a page.",
  parameters: z.object({ url: z.string().describe("The address") }),
  sideEffects: "network",
  run({ url }) {
    return "fetched " + url + " " + crypto.randomUUID();
  },
});
`;

Deno.test("--cache-tools calls a side-effect tool in every repeat and replays each repeat's own result", async () => {
  await using fake = startFakeOpenAIServer((request: RecordedRequest): FakeReply => {
    const body = request.body as { messages: { role: string; content: string }[] };
    const observed = body.messages.find((m) => m.role === "tool");
    if (!observed) {
      return {
        json: chatCompletion({
          tool_calls: [{ id: "c1", name: "page", arguments: '{"url": "https://example.org/"}' }],
        }),
      };
    }
    return { json: chatCompletion({ content: `Seen: ${observed.content}` }) };
  });
  await using t = await tempTree({
    "tool.ts": TOOL,
    "c.yaml": `name: tools
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: m, base_url: "${fake.baseUrl}", api_key_env: null, max_retries: 0,
  price: {input_per_mtok: 0, output_per_mtok: 0}}
tools: {allow: [page], allow_network: true}
evaluation: {concurrency: 1, repeats: 2}
systems:
  - type: agent_search
    name: agent
    tools: [{name: page, path: "./tool.ts#page", side_effects: network}]
`,
  });
  const common = ["--cache-tools", "read-write", "--cache-dir", t.path("cache")];
  const run = (out: string) =>
    runCli(["run", t.path("c.yaml"), "--limit", "1", "--out", t.path(out), ...common]);
  const recorded = await run("a");
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.match(recorded.stderr, /tool results \(read-write\): 0 reused, 2 missed, 2 recorded/);
  const replayed = await run("b");
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stderr, /tool results \(read-write\): 2 reused, 0 missed, 0 recorded/);
  const outputs = async (dir: string) =>
    ((await readJsonl(join(t.path(dir), RESULTS))) as QuestionResult[]).map((l) =>
      (l.steps.find((s) => s.type === "tool") as ToolStep).result.output
    );
  const live = await outputs("a");
  assert.equal(live.length, 2);
  assert.notEqual(live[0], live[1]);
  assert.deepEqual(await outputs("b"), live);
});
