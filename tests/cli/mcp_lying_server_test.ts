import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { ROOT, runCli, spawnCli } from "../support/cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { LYING_SERVER, startLyingHttpServer } from "../support/lying_mcp.ts";
import { tempTree } from "../support/temp.ts";

/** A secret with a quote, so that JSON text holds it escaped (`tok\"en`). */
const SECRET = 'tok"en-4471-hostile';
const ESCAPED = JSON.stringify(SECRET).slice(1, -1);
const API_KEY = "sk-ragbench-hostile-9034";
const DEFAULT_ENV = "HOME,LOGNAME,PATH,SHELL,TERM,USER";
/** Longest a run of these tests may take before it counts as hung and is killed. */
const HUNG_MS = 120_000;

/** A config with the lying server over stdio (system `stdio`) and, given a URL, over HTTP. */
function configText(
  baseUrl: string,
  options: { marker: string; httpUrl?: string; stdioAllow: string[]; httpAllow?: string[] },
): string {
  const deno = JSON.stringify(Deno.execPath());
  const http = options.httpUrl
    ? `  - type: agent_search
    name: http
    tools:
      - type: mcp
        server: {url: "${options.httpUrl}", headers: {Authorization: "Bearer \${MCP_LYING_SECRET}"}}
        allow: [${options.httpAllow!.join(", ")}]
`
    : "";
  return `name: mcp_hostile
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
model: {base_url: "${baseUrl}", api_key_env: MCP_TEST_API_KEY, name: fake-model,
        price: {input_per_mtok: 0, output_per_mtok: 0}, max_retries: 0}
evaluation: {concurrency: 1}
tools: {allow_network: true}
systems:
  - type: agent_search
    name: stdio
    tools:
      - type: mcp
        server:
          command: [${deno}, run, --quiet, --allow-env, ${LYING_SERVER}, ${options.marker}]
          env: {TOKEN: "\${MCP_LYING_SECRET}"}
        allow: [${options.stdioAllow.join(", ")}]
${http}`;
}

const QUESTIONS =
  '- {id: h1, question: "What does the tool say?", checks: [{type: contains, value: ok}]}\n';

/** The fake model calls each offered tool once, in order, then answers. */
function callEveryTool(request: { body: unknown }) {
  const body = request.body as {
    messages: Array<{ role: string }>;
    tools?: Array<{ function: { name: string } }>;
  };
  const names = (body.tools ?? []).map((t) => t.function.name);
  const done = body.messages.filter((m) => m.role === "tool").length;
  if (done < names.length) {
    return {
      json: chatCompletion({
        tool_calls: [{ id: `call_${done}`, name: names[done], arguments: "{}" }],
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      }),
    };
  }
  return {
    json: chatCompletion({ content: "ok", usage: { prompt_tokens: 1, completion_tokens: 1 } }),
  };
}

/** Processes whose command line holds `marker` (zombies left out). */
async function processesWith(marker: string): Promise<string[]> {
  const { stdout } = await new Deno.Command("ps", { args: ["-eo", "stat=,args="] }).output();
  return new TextDecoder().decode(stdout).split("\n")
    .filter((l) => l.includes(marker) && !l.trim().startsWith("Z"));
}

/** Waits (at most 10 s, polling) until no process holds `marker`; what is still there. */
async function leftOver(marker: string): Promise<string[]> {
  let left = await processesWith(marker);
  for (let i = 0; i < 100 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = await processesWith(marker);
  }
  return left;
}

/** Runs the CLI as a subprocess; kills it (and so its stdio servers) if it runs past {@link HUNG_MS}. */
async function runBounded(permissions: string[], argv: string[]) {
  const child = spawnCli(permissions, argv, {
    env: { MCP_TEST_API_KEY: API_KEY, MCP_LYING_SECRET: SECRET },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => timer = setTimeout(() => resolve("hung"), HUNG_MS));
  const output = child.output();
  try {
    const first = await Promise.race([output, hung]);
    if (first === "hung") {
      child.kill("SIGKILL");
      await output;
      return { hung: true, code: -1, stdout: "", stderr: "" };
    }
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    return {
      hung: false,
      code: first.code,
      stdout: decode(first.stdout),
      stderr: decode(first.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else files.push(path);
  }
  return files;
}

Deno.test("a server's catastrophic output-schema pattern cannot hang a run, over stdio or HTTP; its secrets never leave", async () => {
  await using t = await tempTree({ "q.yaml": QUESTIONS });
  await using model = startFakeOpenAIServer(callEveryTool);
  await using http = await startLyingHttpServer(SECRET);
  const marker = `lying-${crypto.randomUUID()}`;
  await Deno.writeTextFile(
    t.path("c.yaml"),
    configText(model.baseUrl, {
      marker,
      httpUrl: http.url,
      stdioAllow: ["redos", "redos_ok", "leaky", "leaky_error"],
      httpAllow: ["redos", "redos_ok", "leaky"],
    }),
  );
  const out = t.path("run");
  const ports = [model.baseUrl, http.url].map((u) => `127.0.0.1:${new URL(u).port}`);
  try {
    const result = await runBounded([
      `--allow-read=${ROOT},${t.dir}`,
      `--allow-write=${t.dir}`,
      `--allow-env=MCP_TEST_API_KEY,MCP_LYING_SECRET,${DEFAULT_ENV}`,
      `--allow-net=${ports.join(",")}`,
      // MCP command servers need --allow-run for every program (their process group is signalled).
      "--allow-run",
    ], ["run", t.path("c.yaml"), "--cache", "off", "--out", out]);
    assert.equal(result.hung, false, "the run ended (a backtracking check would spin forever)");
    assert.equal(result.code, 0, result.stderr);
    const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
    assert.deepEqual(lines.map((l) => l.system).sort(), ["http", "stdio"]);
    for (const line of lines) {
      const step = (tool: string) =>
        line.steps.find((s): s is ToolStep => s.type === "tool" && s.tool === tool)!;
      const redos = step("redos").result.error;
      assert.equal(redos?.kind, "execution", line.system);
      assert.equal(
        redos?.message,
        "The MCP server sent a result that does not match the tool's own output schema.",
      );
      assert.match(
        redos?.detail ?? "",
        /, tool "redos": the result at \/s does not match the schema's pattern$/,
      );
      assert.equal(step("redos_ok").result.error, null, line.system);
      assert.equal(step("redos_ok").result.output, "fine");
      assert.equal(step("leaky").result.output, 'plain [secret]\n{"auth":"[secret]"}');
      assert.deepEqual(step("leaky").result.data, {
        auth: "[secret]",
        "[secret]": 1,
        results: [{ doc_id: "d1", note: "[secret]" }],
      });
    }
    const stdio = lines.find((l) => l.system === "stdio")!;
    const denied = stdio.steps.find((s): s is ToolStep =>
      s.type === "tool" && s.tool === "leaky_error"
    )!;
    assert.deepEqual(denied.result.error, {
      kind: "execution",
      message: "denied for key [secret]",
    });
    // The model was offered the tools with the secret masked in description and schema.
    const offered = JSON.stringify(model.requests.map((r) => r.body));
    assert.match(offered, /Calls the API with the key \[secret\] for you\./);
    assert.match(offered, /"\[secret\]":\{"type":"string"\}/);
    const everything = [result.stdout, result.stderr, offered];
    for (const file of await filesUnder(out)) everything.push(await Deno.readTextFile(file));
    for (const text of everything) {
      assert.ok(!text.includes(SECRET), "the secret appears nowhere");
      assert.ok(!text.includes(ESCAPED), "nor its JSON-escaped form");
      assert.ok(!text.includes(API_KEY));
    }
  } finally {
    assert.deepEqual(await leftOver(marker), [], "the stdio server is gone");
  }
});

Deno.test("tools --config prints a server's tool descriptions and schemas with its secrets masked", async () => {
  await using t = await tempTree({ "q.yaml": QUESTIONS });
  const marker = `lying-${crypto.randomUUID()}`;
  await Deno.writeTextFile(
    t.path("c.yaml"),
    configText("http://127.0.0.1:9/v1", { marker, stdioAllow: ["leaky"] }),
  );
  Deno.env.set("MCP_LYING_SECRET", SECRET);
  try {
    for (const json of [false, true]) {
      const result = await runCli([
        "tools",
        "--config",
        t.path("c.yaml"),
        ...(json ? ["--json"] : []),
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Calls the API with the key \[secret\] for you\./);
      assert.match(result.stdout, json ? /"\[secret\]": \{/ : /^ {4}\[secret\]: string, optional/m);
      assert.match(result.stdout, /Authorization: Bearer \[secret\]/);
      assert.ok(!result.stdout.includes(SECRET) && !result.stdout.includes(ESCAPED));
    }
  } finally {
    Deno.env.delete("MCP_LYING_SECRET");
    assert.deepEqual(await leftOver(marker), []);
  }
});

for (
  const [tool, why] of [
    ["deep", "it is nested more than 100 levels deep"],
    ["huge", "its JSON is longer than 100000 characters"],
  ]
) {
  Deno.test(`a tool whose input schema is too ${tool === "deep" ? "deep" : "large"} to send is refused at start-up, naming server and tool`, async () => {
    await using t = await tempTree({ "q.yaml": QUESTIONS });
    await using model = startFakeOpenAIServer(callEveryTool);
    const marker = `lying-${crypto.randomUUID()}`;
    await Deno.writeTextFile(
      t.path("c.yaml"),
      configText(model.baseUrl, { marker, stdioAllow: ["redos_ok", tool] }),
    );
    Deno.env.set("MCP_LYING_SECRET", SECRET);
    Deno.env.set("MCP_TEST_API_KEY", API_KEY);
    try {
      const out = t.path("run");
      const result = await runCli(["run", t.path("c.yaml"), "--cache", "off", "--out", out]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(
          `^MCP server "deno run --quiet --allow-env .*lying_server\\.ts ${marker}" offers the tool "${tool}" \\(under allow in system "stdio"\\) with an input schema no model request can carry: ${why}\\. Take "${tool}" out of allow, or fix the server\\.$`,
          "m",
        ),
      );
      assert.equal(model.requests.length, 0, "no question was asked");
    } finally {
      Deno.env.delete("MCP_LYING_SECRET");
      Deno.env.delete("MCP_TEST_API_KEY");
      assert.deepEqual(await leftOver(marker), []);
    }
  });
}
