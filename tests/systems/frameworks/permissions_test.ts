import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { execCli, ROOT, runCli } from "../../support/cli.ts";
import { assertNoFrameworkProcess, FRAMEWORK_TYPES } from "../../support/frameworks.ts";
import { tempTree } from "../../support/temp.ts";

function taskFlags(task: string): string {
  const command = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks[task] as string;
  return command.replace(/^deno run /, "").replace(/ main\.ts .*$/, "")
    .replace("$(deno eval 'console.log(Deno.execPath())')", Deno.execPath());
}

Deno.test("permissions --mock for frameworks.yaml prints the flags of deno task bench:frameworks, and each framework process's own", async () => {
  const result = await execCli(["--allow-read"], [
    "permissions",
    "configs/frameworks.yaml",
    "--mock",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split("\n");
  assert.equal(lines[1], taskFlags("bench:frameworks"));
  assert.doesNotMatch(lines[1], /--allow-net|--allow-env|--allow-sys/);
  assert.match(
    result.stdout,
    /^--allow-run=\S+ +starting the framework systems' processes \(ai_sdk, langgraph, openai_agents, mastra, llamaindex\)$/m,
  );
  const own = lines.slice(
    lines.indexOf(
      "# the framework systems' processes: each gets only these flags, a cleared environment and no network",
    ) + 1,
  ).filter((line) => line !== "");
  assert.equal(own.length, FRAMEWORK_TYPES.length, own.join("\n"));
  assert.match(own[0], /^ai_sdk \(ai@7\.0\.173\) +--allow-sys=hostname {2}/);
  assert.match(own[1], /^langgraph .* --allow-sys=homedir {2}/);
  assert.match(own[2], /^openai_agents .* --allow-env {2}/);
  assert.match(own[3], /^mastra .* --allow-env=OPENAI_BASE_URL,.*MASTRA_SUSPENDED_RUN_TTL_MS {2}/);
  assert.match(own[4], /^llamaindex .* no permissions$/);
  // all.yaml names no framework: nothing about them.
  const all = await runCli(["permissions", join(ROOT, "configs/all.yaml"), "--mock"]);
  assert.doesNotMatch(all.stdout, /framework systems/);
});

Deno.test("a framework run with exactly the printed flags: ragbench holds no sys or env permission, each framework gets its own", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  const printed = await runCli(["permissions", "configs/frameworks.yaml", "--mock", "--out", out]);
  const flags = printed.stdout.split("\n")[1].split(" ");
  try {
    const result = await execCli(
      flags.filter((f) => !f.startsWith("--unstable")),
      ["run", "configs/frameworks.yaml", "--mock", "--out", out, "--quiet"],
    );
    assert.equal(result.code, 0, result.stderr);
    const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
    assert.equal(lines.length, 15 * 6);
    assert.ok(lines.every((l) => l.passed), JSON.stringify(lines.find((l) => !l.passed)?.error));
  } finally {
    await assertNoFrameworkProcess();
  }
});

Deno.test("run without --allow-run stops before any question, naming the flag the frameworks need", async () => {
  await using t = await tempTree();
  const result = await execCli(
    [`--allow-read=${ROOT}`, `--allow-write=${t.dir}`],
    ["run", "configs/frameworks.yaml", "--mock", "--out", t.path("out")],
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--allow-run=\S+ +\(starting the framework systems' processes/);
});
