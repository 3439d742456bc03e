import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { runCli } from "../support/cli.ts";
import {
  chatCompletion,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../support/fake_openai_server.ts";
import { ROOT } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

/** A model that answers with the first words of the system prompt it was sent. */
function echoingServer() {
  return startFakeOpenAIServer((request: RecordedRequest) => {
    const body = request.body as { messages: { role: string; content: string }[] };
    const system = body.messages.find((m) => m.role === "system")?.content ?? "";
    return { json: chatCompletion({ content: `told: ${system.slice(0, 12)}` }) };
  });
}

function config(baseUrl: string): string {
  return `name: prompts
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: test-model, base_url: "${baseUrl}", api_key_env: null, max_retries: 0, timeout_s: 5}
evaluation: {concurrency: 1}
systems:
  - {type: closed_book, name: terse, prompts: {system: {file: terse.txt}}}
`;
}

async function answers(dir: string): Promise<string[]> {
  const lines = await readJsonl(join(dir, "per_question_results.jsonl")) as QuestionResult[];
  return lines.map((l) => l.answer ?? "");
}

Deno.test("a changed prompt is a new cache key: the same config with other words is sent live, not replayed", async () => {
  await using server = echoingServer();
  await using t = await tempTree({ "c.yaml": config(server.baseUrl), "terse.txt": "Alpha words." });
  const run = (out: string) =>
    runCli([
      "run",
      t.path("c.yaml"),
      "--cache-dir",
      t.path("cache"),
      "--out",
      t.path(out),
      "--limit",
      "2",
      "--quiet",
    ]);
  const first = await run("first");
  assert.equal(first.code, 0, first.stderr);
  assert.equal(server.requests.length, 2);
  assert.deepEqual(await answers(t.path("first")), ["told: Alpha words.", "told: Alpha words."]);

  // The same prompt again: replayed from the cache, nothing sent.
  const again = await run("again");
  assert.equal(again.code, 0, again.stderr);
  assert.equal(server.requests.length, 2);

  // Other words in the prompt file: sent live, and the answers follow them.
  await Deno.writeTextFile(t.path("terse.txt"), "Beta words.");
  const changed = await run("changed");
  assert.equal(changed.code, 0, changed.stderr);
  assert.equal(server.requests.length, 4);
  assert.deepEqual(await answers(t.path("changed")), ["told: Beta words.", "told: Beta words."]);
  const manifest = (dir: string) =>
    JSON.parse(Deno.readTextFileSync(join(t.path(dir), "run.json"))).systems[0];
  assert.notEqual(manifest("changed").prompts_sha256, manifest("first").prompts_sha256);
  assert.match(
    Deno.readTextFileSync(join(t.path("changed"), "config.resolved.yaml")),
    /prompts:\n\s+system: Beta words\./,
  );

  // Resuming the first run with the changed prompt would mix two runs: refused, naming it.
  const resumed = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache-dir",
    t.path("cache"),
    "--resume",
    t.path("first"),
    "--limit",
    "2",
  ]);
  assert.equal(resumed.code, 2);
  assert.match(resumed.stderr, /system "terse": its prompts changed/);
});
