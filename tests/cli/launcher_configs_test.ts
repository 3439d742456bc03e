import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { lineAfter, ROOT, runPrinted, taskCli } from "../support/cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { CRANFIELD } from "../support/shared_data.ts";
import { tempTree } from "../support/temp.ts";

/** Every config bundled with ragbench: the YAML files of configs/ and examples/ that have `systems:`. */
function bundledConfigs(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(ROOT, dir))) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory) walk(rel);
      else if (/\.ya?ml$/.test(entry.name)) {
        if (/^systems:/m.test(Deno.readTextFileSync(join(ROOT, rel)))) found.push(rel);
      }
    }
  };
  walk("configs");
  walk("examples");
  return found.sort();
}

/** Tool calls that returned an error, as `system tool: detail` (a missing permission shows here). */
function toolErrors(lines: readonly QuestionResult[]): string[] {
  return lines.flatMap((line) =>
    line.steps.flatMap((step) =>
      step.type === "tool" && step.result.error
        ? [`${line.system} ${step.tool}: ${step.result.error.detail ?? step.result.error.kind}`]
        : []
    )
  );
}

const CONFIGS = bundledConfigs();

Deno.test("the bundled configs are found (configs/ and examples/)", () => {
  assert.ok(CONFIGS.includes("configs/all.yaml") && CONFIGS.length >= 6, CONFIGS.join(", "));
});

for (const config of CONFIGS) {
  const needsShared = Deno.readTextFileSync(join(ROOT, config)).includes("../../shared/");
  const shared = (() => {
    try {
      return Deno.statSync(CRANFIELD).isDirectory;
    } catch {
      return false;
    }
  })();
  Deno.test({
    name:
      `deno task ragbench validates ${config} and runs it --mock, with no flag given and no tool error`,
    ignore: needsShared && !shared,
    async fn() {
      await using t = await tempTree();
      const validated = await taskCli(["validate", config]);
      assert.equal(validated.code, 0, validated.stderr);
      assert.match(validated.stdout, new RegExp(`^${config}: OK$`, "m"));
      // A deployed pipeline's answers are replayed by --mock only once a live run recorded them
      // (tests/cli/deployed_run_test.ts runs that config live, then --mock).
      if (/^\s*(- )?type: (http|command)$/m.test(Deno.readTextFileSync(join(ROOT, config)))) return;
      const out = t.path("run");
      const run = await taskCli(["run", config, "--mock", "--out", out, "--limit", "2", "--quiet"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "", "--quiet prints no table");
      assert.equal(run.stderr, "", "--quiet prints nothing but errors");
      const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
      assert.ok(lines.length >= 2, `${lines.length} lines`);
      assert.deepEqual(lines.filter((l) => l.error).map((l) => l.error!.message), []);
      assert.deepEqual(toolErrors(lines), []);
    },
  });
}

Deno.test("a typo in the config path says there is no such file, not that a permission is missing", async () => {
  const result = await taskCli(["run", "configs/al.yaml", "--mock"]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, 'Cannot read config "configs/al.yaml": no such file or folder.\n');
  const validate = await taskCli(["validate", "configs/al.yaml"]);
  assert.equal(validate.code, 2);
  assert.match(validate.stderr, /no such file or folder/);
  assert.doesNotMatch(validate.stderr + result.stderr, /permission|--allow/);
});

Deno.test("--show-permissions prints the child's command line: the flags permissions prints, and no more", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  const junit = t.path("ci/junit.xml");
  await Deno.mkdir(t.path("ci"));
  const printed = await taskCli([
    "permissions",
    "configs/rag.yaml",
    "--mock",
    "--out",
    out,
    "--junit",
    junit,
  ]);
  assert.equal(printed.code, 0, printed.stderr);
  const flags = printed.stdout.split("\n")[1];
  assert.match(flags, new RegExp(`--allow-write=${out},${junit}$`));
  const run = await taskCli([
    "run",
    "configs/rag.yaml",
    "--mock",
    "--out",
    out,
    "--junit",
    junit,
    "--limit",
    "1",
    "--show-permissions",
  ]);
  assert.equal(run.code, 0, run.stderr);
  const shown = run.stderr.split("\n")[0];
  assert.equal(
    shown,
    `ragbench: running ${Deno.execPath()} run --no-prompt ${flags} ${ROOT}main.ts run configs/rag.yaml --mock --out ${out} --junit ${junit} --limit 1`,
  );
  // A JUnit file outside the run directory: written with write access to that one file.
  assert.match(await Deno.readTextFile(junit), /^<\?xml/);
  assert.deepEqual([...Deno.readDirSync(t.path("ci"))].map((e) => e.name), ["junit.xml"]);
});

Deno.test("--help's first command works as printed through deno task", async () => {
  const help = await taskCli(["--help"]);
  assert.equal(help.code, 0);
  const start = help.stdout.match(/^Start with: (.*)$/m)?.[1];
  assert.equal(start, "deno task ragbench run configs/all.yaml --mock");
  const run = await runPrinted(start!);
  const dir = run.stderr.match(/, writing (runs\/all-\S+)$/m)?.[1];
  try {
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^agent_all_tools +21 +1\.000 /m);
  } finally {
    // The run went to runs/all-<time> in the repository: remove it.
    if (dir !== undefined) await Deno.remove(join(ROOT, dir), { recursive: true });
  }
});

Deno.test("the other commands run through deno task with what they need: tools, tool, report, compare", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  const run = await taskCli(["run", "configs/rag.yaml", "--mock", "--out", out, "--quiet"]);
  assert.equal(run.code, 0, run.stderr);
  const tools = await taskCli(["tools"]);
  assert.equal(tools.code, 0, tools.stderr);
  assert.match(tools.stdout, /^calculator {2}\(side effects: none\)$/m);
  const calc = await taskCli(["tool", "calculator", "--args", '{"expression": "6*7"}']);
  assert.equal(calc.code, 0, calc.stderr);
  assert.equal(JSON.parse(calc.stdout).output, "42");
  const report = await taskCli(["report", out, "--junit", t.path("j.xml")]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stderr, /report: .*report\.html \(30 result lines\)/);
  const compare = await taskCli(["compare", out, out]);
  assert.equal(compare.code, 0, compare.stderr);
  assert.match(compare.stdout, /agent_search/);
});

Deno.test("tool search --retriever searches with the config's retriever of that name", async () => {
  const query = '{"query": "How tall is the Eiffel Tower?"}';
  const score = async (extra: string[]) => {
    const result = await taskCli([
      "tool",
      "search",
      "--config",
      "configs/all.yaml",
      ...extra,
      "--args",
      query,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const top = JSON.parse(result.stdout).data.results[0];
    assert.equal(top.doc_id, "eiffel_tower");
    return top.score as number;
  };
  // BM25 scores are sums of term weights; hybrid ones reciprocal-rank sums (at most 2 / 61).
  assert.ok(await score(["--retriever", "bm25"]) > 1);
  assert.ok(await score(["--retriever", "hybrid_hashing"]) < 0.1);
  const wrong = await taskCli([
    "tool",
    "search",
    "--config",
    "configs/all.yaml",
    "--retriever",
    "bm26",
  ]);
  assert.equal(wrong.code, 2);
  assert.equal(
    wrong.stderr,
    '--retriever bm26: "configs/all.yaml" has no retriever of that name — did you mean "bm25"?\n',
  );
  const none = await taskCli([
    "tool",
    "search",
    "--retriever",
    "bm25",
    "--corpus",
    "arenas/rag/corpus.json",
  ]);
  assert.equal(none.code, 2);
  assert.match(
    none.stderr,
    /--retriever bm25 names a retriever of a config: give the config with --config CONFIG\./,
  );
  const other = await taskCli([
    "tool",
    "calculator",
    "--config",
    "configs/all.yaml",
    "--retriever",
    "bm25",
  ]);
  assert.equal(other.code, 2);
  assert.match(
    other.stderr,
    /--retriever chooses the retriever of the search tool; "calculator" takes none\./,
  );
});

Deno.test("configs/mcp_example.yaml runs live through deno task: MCP server, model host, key and cache folder granted", async () => {
  await using t = await tempTree();
  await using model = startFakeOpenAIServer((request) => {
    const body = request.body as {
      messages: Array<{ role: string; content: string | null }>;
      tools?: Array<{ function: { name: string } }>;
    };
    const toolResult = body.messages.find((m) => m.role === "tool")?.content;
    const offered = new Set((body.tools ?? []).map((t) => t.function.name));
    if (toolResult !== undefined && toolResult !== null) {
      return { json: chatCompletion({ content: `The answer is ${toolResult}.` }) };
    }
    if (!offered.has("ex_convert_units")) return { json: chatCompletion({ content: "No idea." }) };
    return {
      json: chatCompletion({
        tool_calls: [{
          id: "call_1",
          name: "ex_convert_units",
          arguments: JSON.stringify({ value: 330, from: "m", to: "ft" }),
        }],
      }),
    };
  });
  const text = (await Deno.readTextFile(join(ROOT, "configs/mcp_example.yaml")))
    .replaceAll("../", ROOT);
  await Deno.writeTextFile(
    t.path("mcp.yaml"),
    `${text}model: {base_url: "${model.baseUrl}", api_key_env: LAUNCHER_TEST_KEY, name: fake-model,\n` +
      `        price: {input_per_mtok: 0, output_per_mtok: 0}, max_retries: 0}\n`,
  );
  const env = { LAUNCHER_TEST_KEY: "sk-test", RAGBENCH_CACHE_DIR: t.path("cache") };
  const out = t.path("run");
  const run = await taskCli([
    "run",
    t.path("mcp.yaml"),
    "--out",
    out,
    "--limit",
    "1",
    "--show-permissions",
  ], { env });
  assert.equal(run.code, 0, run.stderr);
  const shown = run.stderr.split("\n")[0];
  assert.match(shown, new RegExp(`--allow-net=127\\.0\\.0\\.1:${new URL(model.baseUrl).port}`));
  assert.match(shown, /--allow-env=LAUNCHER_TEST_KEY,RAGBENCH_CACHE_DIR,/);
  assert.match(shown, new RegExp(`--allow-write=${out},${t.path("cache")}`));
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  assert.deepEqual(toolErrors(lines), []);
  assert.ok(
    lines.some((l) => l.steps.some((s) => s.type === "tool" && s.tool === "ex_convert_units")),
    "the MCP server's tool was called",
  );
  // The cache folder came from $RAGBENCH_CACHE_DIR, read by the launcher and by ragbench.
  assert.ok(Deno.statSync(t.path("cache")).isDirectory);
  const listed = await taskCli(["tools", "--config", t.path("mcp.yaml")], { env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^ex_convert_units {2}\(MCP server/m);
  // The resume of a finished run is refused, naming the command that continues it: as printed, it works.
  const again = await taskCli(["run", t.path("mcp.yaml"), "--out", out, "--limit", "1"], { env });
  assert.equal(again.code, 2);
  const hint = lineAfter(again.stderr, "already holds results; continue that run with:");
  assert.equal(hint, `deno task ragbench run ${t.path("mcp.yaml")} --resume ${out} --limit 1`);
  const resumed = await runPrinted(hint, { env });
  assert.equal(resumed.code, 0, resumed.stderr);
});
