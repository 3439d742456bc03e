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

/** A model that calls the example server's days_between once, then answers with what it saw. */
function model() {
  return startFakeOpenAIServer((request: RecordedRequest): FakeReply => {
    const body = request.body as { messages: { role: string; content: string }[] };
    const observed = body.messages.find((m) => m.role === "tool");
    if (!observed) {
      return {
        json: chatCompletion({
          tool_calls: [{
            id: "c1",
            name: "ex_days_between",
            arguments: '{"start": "2025-01-01", "end": "2025-03-01"}',
          }],
        }),
      };
    }
    return { json: chatCompletion({ content: `Seen: ${observed.content}` }) };
  });
}

Deno.test("--cache-tools records an MCP tool's result and replays it without the model's network", async () => {
  await using fake = model();
  const deno = JSON.stringify(Deno.execPath());
  await using t = await tempTree({
    "c.yaml": `name: mcp_replay
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}examples/mcp/questions.yaml
model: {name: m, base_url: "${fake.baseUrl}", api_key_env: null, max_retries: 0}
evaluation: {concurrency: 1}
systems:
  - type: agent_search
    name: agent
    tools:
      - type: mcp
        server: {command: [${deno}, run, --quiet, ${ROOT}examples/mcp_server.ts]}
        allow: [days_between, convert_units]
        prefix: ex_
        cost_usd: 0.002
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
  // Replay: no network permission at all; the stdio server still starts (it lists the tools).
  const replayed = await execCli(
    [
      `--allow-read=${ROOT},${t.dir}`,
      `--allow-write=${t.dir}`,
      // Every program: an MCP server is stopped with its whole process group.
      "--allow-run",
      "--allow-env=HOME,LOGNAME,PATH,SHELL,TERM,USER",
    ],
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
  assert.equal(live.tool, "ex_days_between");
  assert.equal(live.result.error, null, live.result.output);
  assert.match(live.result.output, /59/);
  assert.equal(again.result.output, live.result.output);
  // The recorded call cost its price; the replayed one cost nothing.
  assert.equal(live.result.cost_usd, 0.002);
  assert.equal(again.result.cost_usd, 0);
});
