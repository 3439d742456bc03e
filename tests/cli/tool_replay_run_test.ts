import assert from "node:assert/strict";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import {
  chatCompletion,
  type FakeReply,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../support/fake_openai_server.ts";
import { firstToolStep } from "../support/run_steps.ts";
import { tempTree } from "../support/temp.ts";

/** A "network" tool whose every answer differs: only a recording can repeat it. */
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

function server() {
  return startFakeOpenAIServer((request: RecordedRequest): FakeReply => {
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
}

Deno.test("--cache-tools records a side-effect tool's result and replays it: the same output, no tool call", async () => {
  await using fake = server();
  await using t = await tempTree({
    "tool.ts": TOOL,
    "c.yaml": `name: tools
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: m, base_url: "${fake.baseUrl}", api_key_env: null, max_retries: 0}
tools: {allow: [page], allow_network: true}
evaluation: {concurrency: 1}
systems:
  - type: agent_search
    name: agent
    tools: [{name: page, path: "./tool.ts#page", side_effects: network}]
`,
  });
  const common = ["--cache-dir", t.path("cache"), "--limit", "1"];
  const recorded = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache-tools",
    "read-write",
    "--out",
    t.path("a"),
    ...common,
  ]);
  assert.equal(recorded.code, 0, recorded.stderr);
  assert.match(recorded.stderr, /tool results \(read-write\): 0 reused, 1 missed, 1 recorded/);
  const replayed = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`, `--allow-run=${Deno.execPath()}`],
    [
      "run",
      t.path("c.yaml"),
      "--cache",
      "replay",
      "--cache-tools",
      "replay",
      "--out",
      t.path("b"),
      ...common,
    ],
  );
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stderr, /tool results \(replay\): 1 reused, 0 missed, 0 recorded/);
  const live = await firstToolStep(t.path("a"));
  const again = await firstToolStep(t.path("b"));
  assert.match(live.result.output, /^fetched https:\/\/example\.org\/ [0-9a-f-]{36}$/);
  assert.equal(again.result.output, live.result.output);
  assert.equal(again.result.error, null);
});
