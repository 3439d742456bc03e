import { DEFAULT_MAX_OUTPUT_CHARS } from "../../lib/config/schema.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { execCli, ROOT, runCli, spawnCli } from "../support/cli.ts";
import {
  chatCompletion,
  startBlackHoleServer,
  startFakeOpenAIServer,
} from "../support/fake_openai_server.ts";
import { waitGone } from "../support/mcp.ts";
import { commandLines, isRunning, killAll, processTable } from "../support/processes.ts";
import { tempTree } from "../support/temp.ts";

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else files.push(path);
  }
  return files;
}

/** Running processes whose command line holds `marker` ("pid args"). */
function processesWith(marker: string): string[] {
  return commandLines().filter((c) => c.args.includes(marker)).map((c) => `${c.pid} ${c.args}`);
}

const SECRET = "s3cr3t-mcp-value-7731";
const API_KEY = "sk-ragbench-own-key-5521";
const DEFAULT_ENV = "HOME,LOGNAME,PATH,SHELL,TERM,USER";

/** The config of these tests; `marker` is an extra argument of both servers, found with `ps`. */
function configText(baseUrl: string, extra = "", marker = "no-marker", mode = "ok"): string {
  const deno = JSON.stringify(Deno.execPath());
  return `name: mcp_live
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}examples/mcp/questions.yaml
model: {base_url: "${baseUrl}", api_key_env: MCP_TEST_API_KEY, name: fake-model,
        price: {input_per_mtok: 0, output_per_mtok: 0}, max_retries: 0}
systems:
  - type: agent_search
    name: agent_with_mcp
    tools:
      - type: mcp
        server: {command: [${deno}, run, --quiet, ${ROOT}examples/mcp_server.ts, ${marker}]}
        allow: [days_between, convert_units]
        prefix: ex_
        cost_usd: {days_between: 0.001}
      - type: mcp
        server:
          command: [${deno}, run, --quiet, --allow-env, ${ROOT}tests/fixtures/mcp/faulty_server.ts, ${mode}, ${marker}]
          env: {TOKEN: "\${MCP_TEST_SECRET}"}
        allow: [env, fail, media, docs, huge]
${extra}`;
}

function permissions(dir: string, port: number): string[] {
  return [
    `--allow-read=${ROOT},${dir}`,
    `--allow-write=${dir}`,
    `--allow-env=MCP_TEST_API_KEY,MCP_TEST_SECRET,${DEFAULT_ENV}`,
    `--allow-net=127.0.0.1:${port}`,
    // Every program: an MCP server is stopped with its whole process group.
    "--allow-run",
  ];
}

/** What the fake model does: one call per turn from `calls`, then an answer. */
function scripted(calls: Array<[string, unknown]>) {
  return (request: { body: unknown }) => {
    const messages = (request.body as { messages: Array<{ role: string }> }).messages;
    const done = messages.filter((m) => m.role === "tool").length;
    if (done < calls.length) {
      const [name, args] = calls[done];
      return {
        json: chatCompletion({
          tool_calls: [{ id: `call_${done}`, name, arguments: JSON.stringify(args) }],
          usage: { prompt_tokens: 10, completion_tokens: 5 },
        }),
      };
    }
    return {
      json: chatCompletion({
        content: "It opened 10152 days later [statue_of_liberty] [panama_canal].",
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      }),
    };
  };
}

Deno.test("a live run calls real MCP servers, prices calls and keeps secrets out of every output", async () => {
  await using t = await tempTree();
  await using model = startFakeOpenAIServer(scripted([
    ["ex_days_between", { start: "1886-10-28", end: "1914-08-15" }],
    ["env", {}],
    ["fail", {}],
    ["media", {}],
    ["docs", {}],
    ["huge", {}],
  ]));
  const port = Number(new URL(model.baseUrl).port);
  const marker = `marker-${crypto.randomUUID()}`;
  await Deno.writeTextFile(t.path("c.yaml"), configText(model.baseUrl, "", marker));
  const out = t.path("run");
  const result = await execCli(
    permissions(t.dir, port),
    ["run", t.path("c.yaml"), "--cache", "off", "--out", out, "--limit", "1"],
    { env: { MCP_TEST_API_KEY: API_KEY, MCP_TEST_SECRET: SECRET } },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const steps = lines[0].steps.filter((s): s is ToolStep => s.type === "tool");
  const step = (tool: string) => steps.find((s) => s.tool === tool)!;
  assert.equal(step("ex_days_between").result.output, "10152");
  assert.equal(step("ex_days_between").result.cost_usd, 0.001);
  assert.equal(step("ex_days_between").result.error, null);
  const env = JSON.parse(step("env").result.output);
  assert.equal(env.TOKEN, "[secret]", "the server got the secret; ragbench masked it");
  assert.ok(!Object.values(env).includes(API_KEY), "ragbench's API key never reaches a server");
  assert.equal(env.MCP_TEST_API_KEY, undefined);
  assert.deepEqual(step("fail").result.error, {
    kind: "execution",
    message: "the widget is out of stock",
  });
  assert.match(
    step("media").result.output,
    /^\[image content: image\/png, \d+ bytes, not shown\]$/m,
  );
  assert.match(
    step("media").result.output,
    /\[embedded resource file:\/\/\/secret\/plan\.txt \(text\/plain\), 5000 characters of text, not shown\]/,
  );
  assert.ok(step("media").result.output.length < 400, "media is described, not dumped");
  assert.deepEqual(step("docs").result.data, [{ doc_id: "eiffel_tower", score: 1 }, {
    doc_id: "k2",
  }]);
  assert.equal(step("huge").result.truncated, true);
  assert.ok(step("huge").result.output.length < DEFAULT_MAX_OUTPUT_CHARS + 200);
  // Retrieval scores stay computed from the built-in search tools only.
  // (mcp01's evidence is eiffel_tower, which the docs tool listed.)
  assert.deepEqual(lines[0].retrieval.ranking, []);
  assert.equal(lines[0].trajectory.steps_to_evidence, 5, "MCP doc ids count for the trajectory");

  const usage = await Deno.readTextFile(join(out, "tool_usage.csv"));
  assert.match(usage, /^agent_with_mcp,ex_days_between,1,0,0,0,1,[\d.]+,0\.001$/m);
  assert.match(
    usage,
    /^agent_with_mcp,ex_convert_units,0,0,,0,0,,0$/m,
    "never-called tool has a row",
  );

  assert.deepEqual(processesWith(marker), [], "the servers were closed when the run ended");

  const everything = [result.stdout, result.stderr];
  for (const file of await filesUnder(out)) everything.push(await Deno.readTextFile(file));
  assert.ok(everything.length > 5, "the whole run directory was read");
  for (const text of everything) {
    assert.ok(!text.includes(SECRET), "the secret appears in no output");
    assert.ok(!text.includes(API_KEY));
  }
});

Deno.test("an allow-list typo fails the run before any question, with a did-you-mean", async () => {
  await using t = await tempTree();
  await Deno.writeTextFile(
    t.path("c.yaml"),
    configText("http://127.0.0.1:9/v1").replace(
      "allow: [days_between, convert_units]",
      "allow: [days_betwen]",
    ).replace("cost_usd: {days_between: 0.001}", "cost_usd: 0.001")
      .replace(`${ROOT}examples/mcp/questions.yaml`, t.path("q.yaml")),
  );
  await Deno.writeTextFile(
    t.path("q.yaml"),
    '- {id: q1, question: How many days?, checks: [{type: contains, value: "1"}]}\n',
  );
  const out = t.path("run");
  const result = await execCli(
    permissions(t.dir, 9),
    ["run", t.path("c.yaml"), "--cache", "off", "--out", out],
    { env: { MCP_TEST_API_KEY: API_KEY, MCP_TEST_SECRET: SECRET } },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /^MCP server "deno run --quiet .*mcp_server\.ts no-marker" does not offer a tool "days_betwen" \(under allow in system "agent_with_mcp"\) — did you mean "days_between"\? It offers: convert_units, days_between\.$/m,
  );
  assert.throws(() => Deno.statSync(out), Deno.errors.NotFound);
});

Deno.test("the start-up check names a missing --allow-run for an MCP server before any question", async () => {
  await using t = await tempTree();
  await Deno.writeTextFile(t.path("c.yaml"), configText("http://127.0.0.1:9/v1"));
  const result = await execCli(
    permissions(t.dir, 9).filter((p) => !p.startsWith("--allow-run")),
    ["run", t.path("c.yaml"), "--cache", "off", "--out", t.path("run")],
    { env: { MCP_TEST_API_KEY: API_KEY } },
  );
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--allow-run\s+\(starting MCP server "deno run.*process group/);
});

Deno.test("--mock offers MCP tools without starting any server", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  const result = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`],
    ["run", join(ROOT, "configs/mcp_example.yaml"), "--mock", "--out", out],
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const withMcp = lines.filter((l) => l.system === "agent_with_mcp");
  assert.deepEqual(withMcp.map((l) => l.passed), [true, true]);
  const call = withMcp[1].steps.find((s): s is ToolStep =>
    s.type === "tool" && s.tool === "ex_days_between"
  )!;
  assert.equal(
    call.result.output,
    '[mock mcp] ex_days_between({"start":"1886-10-28","end":"1914-08-15"})',
  );
  assert.equal(call.result.cost_usd, 0.001);
  assert.deepEqual(lines.filter((l) => l.system === "agent_search_only").map((l) => l.passed), [
    false,
    false,
  ]);
});

/** Starts a run that hangs on the model after its MCP servers started; returns it and the server pids. */
async function runWithLiveServers(dir: string) {
  const blackHole = startBlackHoleServer();
  const port = Number(new URL(blackHole.baseUrl).port);
  await Deno.writeTextFile(join(dir, "c.yaml"), configText(blackHole.baseUrl));
  const child = spawnCli(permissions(dir, port), [
    "run",
    join(dir, "c.yaml"),
    "--cache",
    "off",
    "--out",
    join(dir, "run"),
  ], {
    env: { MCP_TEST_API_KEY: API_KEY, MCP_TEST_SECRET: SECRET },
  });
  let pids: number[] = [];
  for (let i = 0; i < 300 && pids.length < 2; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const children = new Set(processTable().filter((e) => e.ppid === child.pid).map((e) => e.pid));
    pids = commandLines()
      .filter((c) => children.has(c.pid) && /mcp_server\.ts|faulty_server\.ts/.test(c.args))
      .map((c) => c.pid);
  }
  // Wait until the run reached the model, so the servers finished their handshake.
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    blackHole.requestArrived,
    new Promise((r) => timer = setTimeout(r, 30_000)),
  ]);
  clearTimeout(timer);
  return { child, pids, blackHole };
}

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  Deno.test(`killing ragbench with ${signal} leaves no MCP server process behind`, async () => {
    await using t = await tempTree();
    const { child, pids, blackHole } = await runWithLiveServers(t.dir);
    try {
      assert.equal(pids.length, 2, "both servers started");
      for (const pid of pids) assert.ok(isRunning(pid));
      child.kill(signal);
      await child.status;
      for (const pid of pids) assert.ok(await waitGone(pid), `server ${pid} exited`);
    } finally {
      killAll(pids); // once ragbench is gone they are no longer this process's descendants
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.stdout.cancel();
      await child.stderr.cancel();
      await child.status;
      await blackHole.close();
    }
  });
}

Deno.test("Ctrl-C closes the MCP servers before ragbench exits", async () => {
  await using t = await tempTree();
  const { child, pids, blackHole } = await runWithLiveServers(t.dir);
  try {
    assert.equal(pids.length, 2);
    child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGINT");
    await child.status;
    for (const pid of pids) assert.ok(await waitGone(pid), `server ${pid} exited`);
  } finally {
    killAll(pids);
    await child.stdout.cancel();
    await child.stderr.cancel();
    await blackHole.close();
  }
});

Deno.test("validate never starts an MCP server", async () => {
  await using t = await tempTree();
  await Deno.writeTextFile(
    t.path("c.yaml"),
    configText("http://127.0.0.1:9/v1").replaceAll(
      JSON.stringify(Deno.execPath()),
      "/no/such/server",
    ),
  );
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 0, result.stderr);
});

Deno.test("tools --config lists the allowed MCP tools with the server's schema, and says it starts servers", async () => {
  await using t = await tempTree();
  await Deno.writeTextFile(t.path("c.yaml"), configText("http://127.0.0.1:9/v1"));
  Deno.env.set("MCP_TEST_SECRET", SECRET);
  const result = await runCli(["tools", "--config", t.path("c.yaml")]).finally(() =>
    Deno.env.delete("MCP_TEST_SECRET")
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /Starting the config's MCP servers to read their tools/);
  assert.match(
    result.stdout,
    /^ex_days_between {2}\(MCP server "deno run --quiet .*mcp_server\.ts no-marker", side effects: filesystem\)\n {2}Number of calendar days/m,
  );
  assert.match(result.stdout, /^ {4}start: string, required — First date, YYYY-MM-DD$/m);
  assert.doesNotMatch(result.stdout, /^garbage /m, "only allowed tools are listed");
});

Deno.test("a server that fails to start stops the run before any question and closes the others", async () => {
  await using t = await tempTree();
  const marker = `marker-${crypto.randomUUID()}`;
  await Deno.writeTextFile(
    t.path("c.yaml"),
    configText("http://127.0.0.1:9/v1", "", marker, "crash"),
  );
  const out = t.path("run");
  const result = await execCli(permissions(t.dir, 9), [
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--out",
    out,
  ], {
    env: { MCP_TEST_API_KEY: API_KEY, MCP_TEST_SECRET: SECRET },
  });
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /^Cannot start MCP server "deno run .*faulty_server\.ts crash marker-.*": it exited during the handshake\. Its stderr began:\n {2}faulty server: cannot open its database\?\[2J$/m,
  );
  assert.ok(!result.stderr.includes(SECRET));
  assert.throws(() => Deno.statSync(out), Deno.errors.NotFound);
  assert.deepEqual(processesWith(marker), [], "the example server started first was closed");
});
