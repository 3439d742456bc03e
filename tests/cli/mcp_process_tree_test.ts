import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, spawnCli } from "../support/cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import {
  killAllWith,
  waitForProcesses,
  waitNoneWith,
  wrappedUnkillableCommand,
} from "../support/process_tree.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** A model that calls the server's `wait` tool once per question, then answers. */
function model() {
  return startFakeOpenAIServer((request) => {
    const messages = (request.body as { messages: Array<{ role: string }> }).messages;
    if (messages.some((m) => m.role === "tool")) {
      return { json: chatCompletion({ content: "It waited." }) };
    }
    return {
      json: chatCompletion({ tool_calls: [{ id: "call_1", name: "wait", arguments: "{}" }] }),
    };
  });
}

/** Two questions; one system whose MCP server is the unkillable one behind `sh -c`. */
function config(baseUrl: string, mode: string, marker: string): string {
  return `name: mcp_tree
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
model: {name: m, base_url: "${baseUrl}", api_key_env: null, max_retries: 0,
        price: {input_per_mtok: 0, output_per_mtok: 0}}
evaluation: {concurrency: 1}
tools: {timeout_s: 1}
systems:
  - type: agent_search
    name: agent
    tools:
      - type: mcp
        server: {command: ${JSON.stringify(wrappedUnkillableCommand(mode, marker))}}
        allow: [wait]
`;
}

const QUESTIONS = "- {id: q1, question: Wait once?, checks: [{type: contains, value: waited}]}\n" +
  "- {id: q2, question: Wait twice?, checks: [{type: contains, value: waited}]}\n";

/** How the run is ended: undefined lets it finish. */
const CASES: Array<[string, Deno.Signal | undefined, number]> = [
  ["a normal end", undefined, 0],
  ["Ctrl-C", "SIGINT", 130],
  ["SIGTERM", "SIGTERM", 143],
  ["SIGHUP", "SIGHUP", 129],
];

for (const [name, signal, code] of CASES) {
  Deno.test(`after ${name}, a run whose MCP server (behind a wrapper shell, deaf to SIGTERM) is stuck in a call exits and leaves none of its processes`, async () => {
    await using fake = model();
    const marker = `unkillable-${crypto.randomUUID()}`;
    await using t = await tempTree({
      "q.yaml": QUESTIONS,
      "c.yaml": config(fake.baseUrl, "stuck", marker),
    });
    const port = new URL(fake.baseUrl).port;
    const out = t.path("run");
    const child = spawnCli(
      [
        `--allow-read=${ROOT},${t.dir}`,
        `--allow-write=${t.dir}`,
        "--allow-env=HOME,LOGNAME,PATH,SHELL,TERM,USER",
        `--allow-net=127.0.0.1:${port}`,
        "--allow-run",
      ],
      ["run", t.path("c.yaml"), "--cache", "off", "--out", out, "--quiet"],
    );
    let exited = false;
    try {
      if (signal) {
        await waitForProcesses(marker, 2);
        // The first request asks for the call; the server is then stuck in it.
        for (let i = 0; i < 400 && fake.requests.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 25));
        }
        assert.ok(fake.requests.length > 0, "the model was asked");
        await new Promise((r) => setTimeout(r, 300));
        child.kill(signal);
      }
      const status = await settles(child.output(), "ragbench's exit");
      exited = true;
      const stderr = decode(status.stderr);
      assert.equal(status.code, code, stderr);
      if (!signal) {
        const lines = Deno.readTextFileSync(join(out, RESULTS)).trimEnd().split("\n");
        assert.equal(lines.length, 2, "both questions were recorded");
        assert.match(lines[0], /"kind":"timeout"/, "the stuck call timed out");
      }
      assert.deepEqual(await waitNoneWith(marker, 5000), [], "no process of the server is left");
    } finally {
      await cleanUp(child, exited, marker);
    }
  });
}

Deno.test("Ctrl-C during an MCP handshake the server never answers stops the run at once (exit 130) and ends the server", async () => {
  await using fake = model();
  const marker = `unkillable-${crypto.randomUUID()}`;
  await using t = await tempTree({
    "q.yaml": QUESTIONS,
    "c.yaml": config(fake.baseUrl, "slow_start", marker),
  });
  const port = new URL(fake.baseUrl).port;
  const child = spawnCli(
    [
      `--allow-read=${ROOT},${t.dir}`,
      `--allow-write=${t.dir}`,
      "--allow-env=HOME,LOGNAME,PATH,SHELL,TERM,USER",
      `--allow-net=127.0.0.1:${port}`,
      "--allow-run",
    ],
    ["run", t.path("c.yaml"), "--cache", "off", "--out", t.path("run"), "--quiet"],
  );
  let exited = false;
  try {
    await waitForProcesses(marker, 2);
    child.kill("SIGINT");
    const status = await settles(child.output(), "ragbench's exit");
    exited = true;
    const stderr = decode(status.stderr);
    assert.equal(status.code, 130, stderr);
    assert.match(stderr, /cancelled while the tools were starting: nothing was run\./);
    assert.doesNotMatch(stderr, /handshake within/);
    assert.equal(fake.requests.length, 0);
    assert.throws(() => Deno.statSync(t.path("run")), Deno.errors.NotFound);
    assert.deepEqual(await waitNoneWith(marker, 5000), [], "no process of the server is left");
  } finally {
    await cleanUp(child, exited, marker);
  }
});

/** Kills ragbench if it has not exited, then every process of the server, whatever happened. */
async function cleanUp(child: Deno.ChildProcess, exited: boolean, marker: string): Promise<void> {
  try {
    if (!exited) {
      try {
        child.kill("SIGKILL");
      } catch { /* gone meanwhile */ }
      await child.status;
    }
  } finally {
    await killAllWith(marker);
  }
}

/** `promise`, or a failure saying `what` never happened (a hang guard far above any real wait). */
async function settles<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        timer = setTimeout(() => reject(new Error(`${what} never happened`)), 90_000)
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
