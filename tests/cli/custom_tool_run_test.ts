import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult, ToolStep } from "../../lib/types.ts";
import { execCli, ROOT, runCli, spawnCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";
import { killAll } from "../support/processes.ts";
import { waitUntil } from "../support/wait.ts";
import { toolProcesses } from "../support/probe_host.ts";

Deno.test("a run with the example custom tool: it is offered, called in its process, and scored", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    join(ROOT, "configs/custom_tool.yaml"),
    "--mock",
    "--out",
    out,
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const withTool = lines.filter((l) => l.system === "agent_with_converter");
  assert.deepEqual(withTool.map((l) => l.passed), [true, true]);
  const call = withTool[0].steps.find((s): s is ToolStep =>
    s.type === "tool" && s.tool === "convert_length"
  )!;
  assert.deepEqual(call.args, { value: 330, from: "m", to: "ft" });
  assert.equal(call.result.output, "330 m = 1082.68 ft");
  assert.deepEqual(lines.filter((l) => l.system === "agent_search_only").map((l) => l.passed), [
    false,
    false,
  ]);
  const usage = Deno.readTextFileSync(join(out, "tool_usage.csv"));
  assert.match(usage, /^agent_with_converter,convert_length,2,0,0,0,2,/m);
  const resolved = Deno.readTextFileSync(join(out, "config.resolved.yaml"));
  assert.match(resolved, /offered_tools:\n\s+- search\n\s+- convert_length/);
});

Deno.test("a custom tool that cannot be loaded stops the run before any question (exit 2)", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}examples/custom_tool/questions.yaml
systems:
  - type: agent_search
    tools: [{name: convert_length, path: "${ROOT}examples/custom_tool/unit_convert.ts#convertLenght"}]
`,
  });
  const out = join(t.dir, "run");
  const result = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`, `--allow-run=${Deno.execPath()}`],
    ["run", t.path("c.yaml"), "--mock", "--out", out],
  );
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /^Cannot load custom tool "convert_length" from ".*unit_convert\.ts#convertLenght": it has no export named "convertLenght" \(it exports: convertLength\)\.$/m,
  );
  assert.throws(() => Deno.statSync(out), Deno.errors.NotFound);
});

Deno.test("config: a custom tool may not reuse a built-in name, and side effects must be allowed", async () => {
  const cases: Array<[string, RegExp]> = [
    [
      `[{name: search, path: "./x.ts#x"}]`,
      /custom tool "search" reuses the name of a built-in tool — choose another name/,
    ],
    [
      `[{name: web, path: "./x.ts#x", side_effects: network}]`,
      /tool "web" has network side effects and is not in tools\.allow — add it to tools\.allow if it may run/,
    ],
    [
      `[{name: files, path: "./x.ts#x", side_effects: filesystem}]`,
      /tool "files" has filesystem side effects and is not in tools\.allow/,
    ],
    [`[{name: x, path: "./x.ts"}]`, /path: write it as "\.\/file\.ts#exportName"/],
  ];
  for (const [tools, message] of cases) {
    await using t = await tempTree({
      "c.yaml":
        `name: t\ncorpus: c.json\nquestions: q.yaml\nsystems:\n  - {type: agent_search, tools: ${tools}}\n`,
    });
    const result = await runCli(["validate", t.path("c.yaml")]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, message);
    assert.match(result.stderr, /\(line 5, column \d+\)/);
  }
  await using net = await tempTree({
    "c.yaml": `name: t
corpus: c.json
questions: q.yaml
tools: {allow: [web]}
systems:
  - {type: agent_search, tools: [{name: web, path: "./x.ts#x", side_effects: network}]}
`,
  });
  const result = await runCli(["validate", net.path("c.yaml")]);
  assert.match(
    result.stderr,
    /tool "web" uses the network, which tools\.allow_network forbids — set tools\.allow_network: true to permit it/,
  );
});

Deno.test("Ctrl-C twice quits at once and kills a custom tool's spinning process on the way out", async () => {
  await using t = await tempTree({
    "spin.ts": `import { defineTool, z } from "ragbench/tool";
export const spin = defineTool({
  name: "spin",
  description: "Spin forever.",
  parameters: z.object({}),
  sideEffects: "none",
  run() {
    for (;;) { /* runaway */ }
  },
});
`,
    "q.yaml": "- {id: q1, question: Spin please?, checks: [{type: contains, value: x}]}\n",
    "mock.yaml": '"Spin please":\n  - {call: spin}\n  - {answer: done}\n',
    "c.yaml": `name: spin
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
mock_script: mock.yaml
tools: {timeout_s: 60}
systems: [{type: agent_search, tools: [{name: spin, path: "./spin.ts#spin"}]}]
`,
  });
  const child = spawnCli(
    [
      `--allow-read=${ROOT},${t.dir},/proc`,
      `--allow-write=${t.dir}`,
      `--allow-run=${Deno.execPath()}`,
    ],
    ["run", t.path("c.yaml"), "--mock", "--out", t.path("out")],
  );
  const marker = t.path("spin.ts");
  try {
    await waitUntil(() => toolProcesses(marker).length > 0);
    assert.equal(toolProcesses(marker).length, 1, "the tool's process started");
    await new Promise((r) => setTimeout(r, 800)); // the call is now spinning
    // The first Ctrl-C waits for the question in progress, which spins until its 60 s timeout;
    // the second quits at once. (Two signals sent together may arrive as one.)
    child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 500));
    // On a loaded machine the call may not have reached the tool yet, and the first Ctrl-C then
    // ends the run by itself (exit 130 too): the second finds no process to signal.
    try {
      child.kill("SIGINT");
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
    const status = await child.output();
    assert.equal(status.code, 130);
    await waitUntil(() => toolProcesses(marker).length === 0);
    assert.deepEqual(toolProcesses(marker), [], "no tool process outlives ragbench");
  } finally {
    // A tool process that outlived ragbench is no longer this process's descendant.
    killAll([child.pid, ...toolProcesses(marker)]);
    await child.status;
  }
});

Deno.test("a process that exits without closing its tool hosts still kills their processes", async () => {
  const script = join(ROOT, "tests/fixtures/tools/exit_without_close.ts");
  const marker = join(ROOT, "tests/fixtures/tools/probe_tools.ts");
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--allow-read=${ROOT}`, `--allow-run=${Deno.execPath()}`, script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  try {
    assert.equal(output.code, 3, new TextDecoder().decode(output.stderr));
    await waitUntil(() => toolProcesses(marker).length === 0);
    assert.deepEqual(toolProcesses(marker), []);
  } finally {
    killAll(toolProcesses(marker));
  }
});
