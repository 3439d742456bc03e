import assert from "node:assert/strict";
import { join } from "node:path";
import { planLaunch } from "../../../lib/cli/launcher.ts";
import { commandSpec } from "../../../main.ts";
import { ROOT, taskCli } from "../../support/cli.ts";
import { tempTree } from "../../support/temp.ts";

const context = {
  program: "deno task ragbench",
  main: `${ROOT}main.ts`,
  specOf: commandSpec,
  cwd: ROOT.replace(/\/$/, ""),
};

const flags = async (argv: string[]) =>
  (await planLaunch(argv, context)).args.filter((a) => a.startsWith("--allow-"));

Deno.test("launch plan: a custom system's run may start deno, and nothing else is added for it", async () => {
  const run = await flags(["run", "configs/custom_system.yaml", "--mock"]);
  assert.ok(run.includes(`--allow-run=${Deno.execPath()}`), run.join(" "));
  assert.ok(!run.some((f) => f.startsWith("--allow-net") || f.startsWith("--allow-env")));
});

Deno.test("launch plan: listing, calling and running a plug-in's tools may start deno; its grants stay its own", async () => {
  await using t = await tempTree({
    "q.yaml": "- id: q1\n  question: Count the words.\n",
    "c.yaml": `name: t
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
tools:
  plugins:
    - {module: "${ROOT}tests/fixtures/plugins/acme_tools.ts", tools: [word_count], permissions: {env: [ACME_TOKEN]}}
systems:
  - {type: agent_search, tools: [word_count]}
`,
  });
  const runFlag = `--allow-run=${Deno.execPath()}`;
  for (
    const argv of [
      ["tools", "--config", t.path("c.yaml")],
      ["tool", "word_count", "--config", t.path("c.yaml"), "--args", '{"text":"a b"}'],
      ["run", t.path("c.yaml"), "--mock", "--out", join(t.dir, "run")],
    ]
  ) {
    const got = await flags(argv);
    assert.ok(got.includes(runFlag), `${argv[0]}: ${got.join(" ")}`);
    assert.ok(!got.some((f) => f.startsWith("--allow-env")), `${argv[0]}: ${got.join(" ")}`);
  }
});

Deno.test("the worked custom system runs through deno task ragbench with the flags it computes", async () => {
  await using t = await tempTree();
  const result = await taskCli([
    "run",
    "configs/custom_system.yaml",
    "--mock",
    "--out",
    join(t.dir, "run"),
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(Deno.statSync(join(t.dir, "run", "run.json")).isFile);
});
