import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { ModelStep, QuestionResult } from "../../lib/types.ts";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import {
  chatCompletion,
  type FakeReply,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../support/fake_openai_server.ts";
import { endpointConfig } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";

/** An agent that searches once, then answers: two model calls and one tool call per question. */
function agentServer() {
  return startFakeOpenAIServer((request: RecordedRequest): FakeReply => {
    const body = request.body as { messages: { role: string; content: string }[] };
    const searched = body.messages.some((m) => m.role === "tool");
    if (!searched) {
      const question = body.messages.find((m) => m.role === "user")?.content ?? "";
      return {
        json: chatCompletion({
          tool_calls: [{
            id: "call_1",
            name: "search",
            arguments: JSON.stringify({ query: question.slice(0, 40) }),
          }],
          usage: { prompt_tokens: 200, completion_tokens: 10 },
        }),
      };
    }
    return {
      json: chatCompletion({
        content: "It is 330.",
        usage: { prompt_tokens: 400, completion_tokens: 5 },
      }),
    };
  });
}

function config(baseUrl: string): string {
  return endpointConfig(baseUrl, "  - {type: agent_search, name: agent}\n").replace(
    "api_key_env: null,",
    "api_key_env: RAGBENCH_TEST_REPLAY_KEY, price: {input_per_mtok: 1, output_per_mtok: 2},",
  );
}

/** The JSONL with every latency zeroed (the only fields that vary between identical runs). */
function withoutTiming(text: string): string {
  return text.replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0');
}

/** What a replayed line shows differently from its recording: $0 billed, the recording's figures kept. */
function asRecorded(line: QuestionResult): QuestionResult {
  const steps = line.steps.map((step) => {
    if (step.type !== "model" || !step.cached) return step;
    const { cached: _c, recorded_usage, recorded_cost_usd, ...rest } = step as ModelStep;
    return { ...rest, usage: recorded_usage!, cost_usd: recorded_cost_usd! };
  });
  const usage = { input_tokens: 0, output_tokens: 0 };
  let cost = 0;
  for (const step of steps) {
    if (step.type !== "model") continue;
    usage.input_tokens += step.usage.input_tokens;
    usage.output_tokens += step.usage.output_tokens;
    cost += step.cost_usd!;
  }
  return { ...line, steps, usage, cost_usd: cost };
}

function stripRetryFields(line: QuestionResult): QuestionResult {
  return {
    ...line,
    steps: line.steps.map((step) => {
      if (step.type !== "model") return step;
      const { retries: _r, http_statuses: _h, backoff_ms: _b, ...rest } = step;
      return rest;
    }),
  };
}

Deno.test("a live run recorded once replays in a subprocess with no network and no API key: identical results, $0", async () => {
  await using server = agentServer();
  await using t = await tempTree({ "c.yaml": config(server.baseUrl) });
  const cacheDir = t.path("cache");
  Deno.env.set("RAGBENCH_TEST_REPLAY_KEY", "sk-test-replay");
  try {
    const recorded = await runCli([
      "run",
      t.path("c.yaml"),
      "--cache-dir",
      cacheDir,
      "--out",
      t.path("recorded"),
      "--limit",
      "3",
    ]);
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.match(
      recorded.stderr,
      /cache: model calls \(read-write\): 0 reused, 9 missed, 9 recorded/,
    );
  } finally {
    Deno.env.delete("RAGBENCH_TEST_REPLAY_KEY");
  }
  // closed_book: 1 call per question; agent: 2.
  assert.equal(server.requests.length, 9);

  // Replay in a locked-down process: no --allow-net, no --allow-env.
  const permissions = [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`];
  const replayArgs = (out: string) => [
    "run",
    t.path("c.yaml"),
    "--cache",
    "replay",
    "--cache-dir",
    cacheDir,
    "--out",
    t.path(out),
    "--limit",
    "3",
  ];
  const first = await execCli(permissions, replayArgs("replay1"));
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /cache: model calls \(replay\): 9 reused, 0 missed, 0 recorded/);
  const second = await execCli(permissions, replayArgs("replay2"));
  assert.equal(second.code, 0, second.stderr);
  assert.equal(server.requests.length, 9, "a replay sends nothing");

  const text = (out: string) => Deno.readTextFileSync(join(t.path(out), RESULTS));
  assert.equal(withoutTiming(text("replay1")), withoutTiming(text("replay2")));

  const live = await readJsonl(join(t.path("recorded"), RESULTS)) as QuestionResult[];
  const replayed = await readJsonl(join(t.path("replay1"), RESULTS)) as QuestionResult[];
  assert.equal(replayed.length, 6);
  for (const line of replayed) {
    assert.equal(line.error, null);
    assert.equal(line.cost_usd, 0);
    assert.deepEqual(line.usage, { input_tokens: 0, output_tokens: 0 });
    for (const step of line.steps) {
      if (step.type === "model") assert.equal(step.cached, true);
    }
  }
  const agentLine = replayed.find((l) => l.system === "agent")!;
  const answerStep = agentLine.steps[2] as ModelStep;
  assert.deepEqual(answerStep.recorded_usage, { input_tokens: 400, output_tokens: 5 });
  assert.equal(answerStep.recorded_cost_usd, 410 / 1e6);
  // Apart from timing, the billing fields and the retry fields of the live calls, the same lines.
  const normal = (lines: QuestionResult[]) =>
    withoutTiming(JSON.stringify(lines.map((l) => stripRetryFields(asRecorded(l)))));
  assert.equal(normal(replayed), normal(live));

  const [row] = parse(Deno.readTextFileSync(join(t.path("replay1"), "metrics_summary.csv")), {
    columns: true,
  }) as Record<string, string>[];
  assert.equal(row.total_cost_usd, "0");
});

Deno.test("a replay miss is the question's error naming the question and step, and the run exits 1", async () => {
  await using server = agentServer();
  await using t = await tempTree({ "c.yaml": config(server.baseUrl) });
  const cacheDir = t.path("cache");
  Deno.env.set("RAGBENCH_TEST_REPLAY_KEY", "sk-test-replay");
  try {
    const recorded = await runCli([
      "run",
      t.path("c.yaml"),
      "--cache-dir",
      cacheDir,
      "--out",
      t.path("recorded"),
      "--limit",
      "1",
      "--systems",
      "agent",
    ]);
    assert.equal(recorded.code, 0, recorded.stderr);
  } finally {
    Deno.env.delete("RAGBENCH_TEST_REPLAY_KEY");
  }
  const result = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`],
    [
      "run",
      t.path("c.yaml"),
      "--cache",
      "replay",
      "--cache-dir",
      cacheDir,
      "--out",
      t.path("replay"),
      "--limit",
      "2",
      "--systems",
      "agent",
    ],
  );
  assert.equal(result.code, 1, result.stderr);
  const message = '--cache replay: no recorded response matches this request for question "sh02" ' +
    "(system agent, repeat 1), model call 1 (step 1). Record it first with a live run " +
    "(--cache read-write, the default), with the same config, questions and model.";
  assert.ok(result.stderr.includes("replay: 1 call had no usable recording:"), result.stderr);
  assert.ok(result.stderr.includes(`  ${message}`), result.stderr);
  const lines = await readJsonl(join(t.path("replay"), RESULTS)) as QuestionResult[];
  const missed = lines.find((l) => l.question_id === "sh02")!;
  assert.deepEqual(missed.error, { kind: "model", message });
  assert.equal(lines.find((l) => l.question_id === "sh01")!.error, null);
});

Deno.test("an identical re-run reuses every response: no request, $0, the recording's cost under recorded_cost_usd", async () => {
  await using server = agentServer();
  await using t = await tempTree({
    "c.yaml": config(server.baseUrl).replace("RAGBENCH_TEST_REPLAY_KEY", "null"),
  });
  const argv = (out: string) => [
    "run",
    t.path("c.yaml"),
    "--cache-dir",
    t.path("cache"),
    "--out",
    t.path(out),
    "--limit",
    "2",
    "--systems",
    "closed_book",
  ];
  assert.equal((await runCli(argv("a"))).code, 0);
  assert.equal(server.requests.length, 2);
  const again = await runCli(argv("b"));
  assert.equal(again.code, 0, again.stderr);
  assert.equal(server.requests.length, 2);
  const [line] = await readJsonl(join(t.path("b"), RESULTS)) as QuestionResult[];
  const step = line.steps[0] as ModelStep;
  assert.deepEqual(
    [step.cached, step.cost_usd, step.recorded_usage, step.recorded_cost_usd],
    [true, 0, { input_tokens: 200, output_tokens: 10 }, 220 / 1e6],
  );
});

Deno.test("permissions --cache replay needs no network and no API key; the default needs the cache folder", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
model: {name: llama3, base_url: "http://localhost:11434/v1", api_key_env: LOCAL_KEY}
systems: [{type: closed_book}]
`,
  });
  const cacheDir = t.path("cache");
  const replay = await runCli([
    "permissions",
    t.path("c.yaml"),
    "--out",
    t.path("out"),
    "--cache",
    "replay",
    "--cache-dir",
    cacheDir,
  ]);
  assert.equal(replay.code, 0, replay.stderr);
  const [header, flags] = replay.stdout.split("\n");
  assert.equal(
    header,
    `# deno run flags for: ragbench run ${t.path("c.yaml")} --out ${
      t.path("out")
    } --cache replay --cache-dir ${cacheDir}`,
  );
  assert.doesNotMatch(flags, /--allow-net|--allow-env/);
  assert.match(flags, new RegExp(`--allow-read=[^ ]*${cacheDir}`));
  assert.match(flags, new RegExp(`--allow-write=[^ ]*${cacheDir}`));

  const live = await runCli([
    "permissions",
    t.path("c.yaml"),
    "--out",
    t.path("out"),
    "--cache-dir",
    cacheDir,
  ]);
  assert.match(live.stdout.split("\n")[1], /--allow-env=LOCAL_KEY --allow-net=localhost:11434/);
  assert.match(live.stdout.split("\n")[1], new RegExp(`--allow-write=[^ ]*${cacheDir}`));
});

Deno.test("--cache with an unknown mode is a usage error with a did-you-mean", async () => {
  const result = await runCli(["run", "configs/rag.yaml", "--cache", "replya"]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    '--cache "replya" is not a cache mode — did you mean "replay"? Use one of: off, read, write, read-write, replay.',
  );
});

Deno.test("--mock never opens the cache, even with --cache replay", async () => {
  await using t = await tempTree();
  const result = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`],
    [
      "run",
      "configs/rag.yaml",
      "--mock",
      "--cache",
      "replay",
      "--cache-dir",
      t.path("cache"),
      "--out",
      t.path("run"),
      "--limit",
      "1",
    ],
  );
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /cache:/);
  assert.throws(() => Deno.statSync(t.path("cache")), Deno.errors.NotFound);
});
