import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { execCli, lineAfter, ROOT, runCli, runPrinted, spawnCli } from "../support/cli.ts";
import {
  chatCompletion,
  startFakeOpenAIServer,
  unusedPort,
} from "../support/fake_openai_server.ts";
import { endpointConfig, slowEndpointRun, waitForLines } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");
const RESULTS = "per_question_results.jsonl";

function withoutTiming(text: string): string {
  return text.replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0');
}

Deno.test("run --mock writes the run files and the TREC folder; the CSV headers and line shape match the golden files", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const names = [...Deno.readDirSync(out)].map((e) => e.name).sort();
  assert.deepEqual(names, [
    "config.resolved.yaml",
    "metrics_summary.csv",
    "per_question_results.jsonl",
    "recommendation.json",
    "report.html",
    "run.json",
    "summary.md",
    "tool_usage.csv",
    "trec",
  ]);
  assert.deepEqual([...Deno.readDirSync(join(out, "trec"))].map((e) => e.name).sort(), [
    "agent_search.run",
    "qrels.txt",
  ]);
  const golden = (name: string) => Deno.readTextFileSync(join(ROOT, "tests/fixtures/golden", name));
  const header = (name: string) => Deno.readTextFileSync(join(out, name)).split("\n")[0] + "\n";
  assert.equal(header("metrics_summary.csv"), golden("metrics_summary_header.csv"));
  assert.equal(header("tool_usage.csv"), golden("tool_usage_header.csv"));
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  const agentLine = lines.find((l) => l.system === "agent_search")!;
  const shape = {
    line: Object.keys(agentLine),
    model_step: Object.keys(agentLine.steps[0]),
    tool_step: Object.keys(agentLine.steps[1]),
    tool_result: Object.keys((agentLine.steps[1] as { result: object }).result),
    check: Object.keys(agentLine.checks[0]),
    retrieval: Object.keys(agentLine.retrieval),
  };
  assert.deepEqual(shape, JSON.parse(golden("result_line_shape.json")));
  const toolUsage = Deno.readTextFileSync(join(out, "tool_usage.csv"));
  assert.match(toolUsage, /^agent_search,search,18,0,0,0,15,/m);
  const resolved = Deno.readTextFileSync(join(out, "config.resolved.yaml"));
  assert.match(resolved, /api_key_env: OPENAI_API_KEY/);
  assert.match(resolved, /id: mock:gpt-4o-mini/);
});

Deno.test("two --mock runs give identical JSONL apart from timing fields", async () => {
  await using t = await tempTree();
  const texts: string[] = [];
  for (const name of ["a", "b"]) {
    const out = join(t.dir, name);
    const result = await runCli([
      "run",
      CONFIG,
      "--mock",
      "--out",
      out,
      "--quiet",
      "--concurrency",
      "3",
    ]);
    assert.equal(result.code, 0, result.stderr);
    texts.push(withoutTiming(Deno.readTextFileSync(join(out, RESULTS))));
  }
  assert.equal(texts[0], texts[1]);
  assert.equal(texts[0].split("\n").length, 31);
});

/** CPU-burning Workers in this process, one per core, until disposed: a loaded machine. */
function burnCores(): { [Symbol.dispose](): void } {
  // Each stops by itself after two minutes, should a failing test not dispose of it.
  const source = "const end = Date.now() + 120000; while (Date.now() < end) {}";
  const workers = Array.from(
    { length: navigator.hardwareConcurrency },
    () => new Worker(`data:text/javascript,${encodeURIComponent(source)}`, { type: "module" }),
  );
  return { [Symbol.dispose]: () => workers.forEach((w) => w.terminate()) };
}

Deno.test("the bench's code_agent on a loaded machine: two runs, and one with a twentieth of its CPU limit, give identical results apart from timing", async () => {
  await using t = await tempTree();
  const bench = Deno.readTextFileSync(join(ROOT, "configs/all.yaml"));
  // The same config with programs limited to 0.25 s of CPU: ten times what a program of the
  // mock uses even on a loaded machine (2–18 ms measured at load 21 on 2 cores), far below the
  // time on a clock such a program took there (up to 1.3 s).
  const tight = bench.replaceAll("../arenas/", join(ROOT, "arenas") + "/").replace(
    "name: code_agent, tools:",
    "name: code_agent, program_timeout_s: 0.25, tools:",
  );
  assert.notEqual(tight, bench);
  Deno.writeTextFileSync(t.path("tight.yaml"), tight);
  using _load = burnCores();
  const texts: string[] = [];
  for (
    const [name, config] of [
      ["a", join(ROOT, "configs/all.yaml")],
      ["b", join(ROOT, "configs/all.yaml")],
      ["tight", t.path("tight.yaml")],
    ]
  ) {
    const out = join(t.dir, name);
    const result = await runCli([
      "run",
      config,
      "--mock",
      "--systems",
      "code_agent",
      "--out",
      out,
      "--quiet",
    ]);
    assert.equal(result.code, 0, result.stderr);
    texts.push(withoutTiming(Deno.readTextFileSync(join(out, RESULTS))));
  }
  // Each question's outcome first (a short message), then every field but the timing ones.
  const outline = (text: string) =>
    text.trim().split("\n").map((l) => JSON.parse(l) as QuestionResult).map((r) =>
      `${r.question_id}: passed ${r.passed}, format_errors ${r.format_errors}`
    );
  assert.deepEqual(outline(texts[1]), outline(texts[0]));
  assert.deepEqual(outline(texts[2]), outline(texts[0]), "the tight limit changed a result");
  assert.equal(texts[0], texts[1]);
  const lines = texts[0].trim().split("\n").map((l) => JSON.parse(l) as QuestionResult);
  assert.equal(lines.length, 21);
  // No program of the mock was stopped: none of its replies was a failed program.
  assert.deepEqual(lines.filter((l) => l.format_errors > 0).map((l) => l.question_id), []);
  assert.equal(lines.filter((l) => l.passed).length, 19);
  assert.equal(texts[2], texts[0], "the tight limit changed a result");
});

Deno.test("an unreachable model endpoint gives an error per question, not a crash (exit 1)", async () => {
  await using t = await tempTree({
    "c.yaml": endpointConfig(`http://127.0.0.1:${unusedPort()}/v1`),
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--cache", "off", "--out", out, "--quiet"]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /failed: every question of closed_book errored/);
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 15);
  for (const line of lines) {
    assert.equal(line.error?.kind, "model");
    assert.match(line.error!.message, /could not be reached: connection refused/);
    assert.equal(line.answer_score, 0);
  }
  assert.match(
    Deno.readTextFileSync(join(out, "metrics_summary.csv")),
    /^closed_book,closed_book,openai:test-model,15,15,0,0,15,/m,
  );
});

Deno.test("a real model endpoint: answers are scored, tokens and cost come from its usage", async () => {
  await using server = startFakeOpenAIServer(() => ({
    json: chatCompletion({
      content: "I don't know, the documents are not available to me.",
      usage: { prompt_tokens: 100, completion_tokens: 20 },
    }),
  }));
  await using t = await tempTree({
    "c.yaml": endpointConfig(server.baseUrl).replace(
      "api_key_env: null,",
      "api_key_env: null, price: {input_per_mtok: 1, output_per_mtok: 2},",
    ),
  });
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--out",
    out,
    "--quiet",
    "--limit",
    "3",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 3);
  assert.deepEqual(lines[0].usage, { input_tokens: 100, output_tokens: 20 });
  assert.equal(lines[0].cost_usd, 140 / 1e6);
  assert.equal(server.requests.length, 3);
});

Deno.test("a missing API key stops the run before any question", async () => {
  await using t = await tempTree({
    "c.yaml": endpointConfig("http://127.0.0.1:1/v1").replace(
      "api_key_env: null",
      "api_key_env: RAGBENCH_TEST_UNSET_KEY",
    ),
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--cache", "off", "--out", out]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    "The model API key is missing: set RAGBENCH_TEST_UNSET_KEY in the environment (model.api_key_env names it; set api_key_env: null for an endpoint that needs no key), or run with --mock.",
  );
  assert.equal(Deno.statSync(t.dir).isDirectory, true);
  assert.throws(() => Deno.statSync(out), Deno.errors.NotFound);
});

Deno.test("deno task bench's exact flags are enough: every tool call works, with no net and no env", async () => {
  const task = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks.bench as string;
  assert.doesNotMatch(task, /--allow-net|--allow-env|--allow-all|\s-A\s/);
  // Run permission for one executable only: the deno CLI, for the code agent's sandbox.
  const execPath = "$(deno eval 'console.log(Deno.execPath())')";
  assert.equal(task.split("--allow-run").length, 2);
  assert.ok(task.includes(` --allow-run=${execPath} `), task);
  await using t = await tempTree();
  const out = join(t.dir, "run");
  // The task's flags, with its run directory (runs) moved to a temporary folder.
  const flags = task.replace(execPath, Deno.execPath()).replace(/^deno run /, "").replace(
    / main\.ts .*$/,
    "",
  ).split(" ")
    .filter((f) => f.startsWith("--allow-"))
    .map((f) => f.replace(/(^|,|=)runs(?=,|$)/g, `$1${out}`));
  const result = await execCli(flags, ["run", "configs/all.yaml", "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /agent_all_tools\s+21\s+1\.000\s+\[1\.000, 1\.000\]\s+21\/21/);
  assert.match(result.stdout, /rag_bm25\s+21\s+0\.714\s+\[[^\]]+\]\s+13\/21/);
  // Vector and hybrid retrieval over the offline hashing embedder, with no env and no cache.
  assert.match(result.stdout, /rag_vector\s+21\s+0\.714\s+\[[^\]]+\]\s+13\/21\s+0\.990/);
  // rag_hybrid's BM25 half counts the thrice-repeated "building" of mh03 once (query_repeats: once),
  // which ranks taipei_101 above the evidence empire_state_building there: nDCG@10 0.987, not 0.990.
  assert.match(result.stdout, /rag_hybrid\s+21\s+0\.714\s+\[[^\]]+\]\s+13\/21\s+0\.987/);
  assert.match(result.stderr, /\[189\/189\]/);
  assert.match(result.stdout, /code_agent\s+21\s+0\.905\s+\[[0-9., ]+\]\s+19\/21/);
  // Mock answers are scripted, so a broken sandbox would still score: check the tools answered.
  const usage = Deno.readTextFileSync(join(out, "tool_usage.csv")).trim().split("\n").slice(1);
  assert.ok(usage.length > 5);
  for (const row of usage) assert.equal(row.split(",")[3], "0", `tool errors in: ${row}`);
});

Deno.test("Ctrl-C keeps only complete lines, exits 130, and --resume finishes the rest", async () => {
  await using run = await slowEndpointRun(120);
  const { t, out, permissions } = run;
  const child = spawnCli(permissions, ["run", t.path("c.yaml"), "--cache", "off", "--out", out]);
  await waitForLines(join(out, RESULTS), 3);
  child.kill("SIGINT");
  const first = await child.output();
  const stderr = new TextDecoder().decode(first.stderr);
  assert.equal(first.code, 130, stderr);
  assert.match(
    stderr,
    /cancelled: \d+ questions not run; the summaries cover what finished\. Finish with:\n {2}deno run .* main\.ts run \S+c\.yaml --resume \S+run --cache off\n/,
  );
  // The graceful stop writes the summaries of what finished.
  assert.match(Deno.readTextFileSync(join(out, "metrics_summary.csv")), /^closed_book,/m);
  const text = Deno.readTextFileSync(join(out, RESULTS));
  assert.ok(text.endsWith("\n"));
  const partial = text.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.ok(partial.length >= 3 && partial.length < 15, `${partial.length} lines`);

  // Started with explicit flags: the printed command carries them, and works as printed.
  const resumed = await runPrinted(lineAfter(stderr, "Finish with:"));
  assert.equal(resumed.code, 0, resumed.stderr);
  const all = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(all.length, 15);
  assert.equal(new Set(all.map((l) => l.question_id)).size, 15);
});

Deno.test("a killed run (SIGKILL) leaves only complete JSON lines and a stale lock; after rm, resume repairs and completes it", async () => {
  await using run = await slowEndpointRun(80);
  const { out, permissions } = run;
  const child = spawnCli(permissions, run.runArgs);
  await waitForLines(join(out, RESULTS), 2);
  child.kill("SIGKILL");
  await child.output();
  // Each line is written whole, in one write: even a kill leaves no partial line.
  const text = Deno.readTextFileSync(join(out, RESULTS));
  assert.ok(text.endsWith("\n"), "the file ends with a complete line");
  for (const line of text.trimEnd().split("\n")) JSON.parse(line);
  const refused = await execCli(permissions, run.resumeArgs);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /has a stale lock: run\.lock was left by ragbench pid \d+, started /,
  );
  assert.match(refused.stderr, new RegExp(`\n  rm ${join(out, "run.lock")}\n`));
  Deno.removeSync(join(out, "run.lock"));
  const resumed = await execCli(permissions, run.resumeArgs);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal((await readJsonl(join(out, RESULTS))).length, 15);
});

const usageErrors: Array<{ name: string; argv: (dir: string) => string[]; message: RegExp }> = [
  {
    name: "an unknown command gets a did-you-mean",
    argv: () => ["rnu", CONFIG],
    message: /^Unknown command "rnu" — did you mean "run"\? See ragbench --help\.$/,
  },
  {
    name: "an unknown option gets a did-you-mean",
    argv: () => ["run", CONFIG, "--mok"],
    message: /^Unknown option "--mok" for "ragbench run" — did you mean "--mock"\?/,
  },
  {
    name: "a missing CONFIG shows the usage",
    argv: () => ["run", "--mock"],
    message: /^Missing CONFIG — usage: ragbench run CONFIG \[options\]$/,
  },
  {
    name: "an option missing its value",
    argv: () => ["run", CONFIG, "--out"],
    message: /^Option --out needs a value: --out DIR\.$/,
  },
  {
    name: "--out and --resume together",
    argv: (d) => ["run", CONFIG, "--mock", "--out", d, "--resume", d],
    message: /^Give either --out or --resume, not both/,
  },
  {
    name: "a bad --concurrency",
    argv: () => ["run", CONFIG, "--mock", "--concurrency", "0"],
    message: /^--concurrency must be a whole number from 1 to 64 \(got "0"\)\.$/,
  },
  {
    name: "--systems naming an unknown system",
    argv: () => ["run", CONFIG, "--mock", "--systems", "agent_serch"],
    message:
      /^--systems names "agent_serch", which the config does not have — did you mean "agent_search"\?$/,
  },
  {
    name: "--resume of a folder without results",
    argv: (d) => ["run", CONFIG, "--mock", "--resume", d],
    message: /^--resume .*: there is no per_question_results\.jsonl to continue\.$/,
  },
];

for (const u of usageErrors) {
  Deno.test(`usage error: ${u.name} (exit 2)`, async () => {
    await using t = await tempTree();
    const result = await runCli(u.argv(t.dir));
    assert.equal(result.code, 2);
    assert.match(result.stderr, u.message);
  });
}

Deno.test("usage error: --out pointing at an earlier run refuses to mix results", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  assert.equal(
    (await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet", "--limit", "1"])).code,
    0,
  );
  const again = await runCli(["run", CONFIG, "--mock", "--out", out]);
  assert.equal(again.code, 2);
  assert.match(
    again.stderr,
    /already holds results; continue that run with:\n {2}ragbench run \S+ --resume \S+ --mock\nor choose another --out\./,
  );
});

Deno.test("--systems and --limit narrow the run", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    CONFIG,
    "--mock",
    "--out",
    out,
    "--systems",
    "agent_search",
    "--limit",
    "4",
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.deepEqual(lines.map((l) => `${l.system}/${l.question_id}`), [
    "agent_search/sh01",
    "agent_search/sh02",
    "agent_search/sh03",
    "agent_search/sh04",
  ]);
});

Deno.test("main: --help, --version, and a command's --help are true to the commands", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /run CONFIG/);
  assert.match(help.stdout, /validate CONFIG/);
  const version = await runCli(["--version"]);
  assert.match(version.stdout, /^\d+\.\d+\.\d+$/);
  const runHelp = await runCli(["run", "--help"]);
  for (
    const flag of [
      "--mock",
      "--out DIR",
      "--resume DIR",
      "--concurrency N",
      "--systems A,B",
      "--limit N",
    ]
  ) {
    assert.ok(runHelp.stdout.includes(flag), flag);
  }
  const none = await runCli([]);
  assert.equal(none.code, 2);
});
