import assert from "node:assert/strict";
import { join } from "node:path";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { toolProcesses } from "../support/probe_host.ts";
import { waitUntil } from "../support/wait.ts";
import { tempTree } from "../support/temp.ts";

const SLOW = join(ROOT, "tests/fixtures/tools/slow_load.ts");

const QUESTIONS = "- {id: q1, question: Slow?, checks: [{type: contains, value: x}]}\n";

function config(toolKeys: string): string {
  return `name: slow
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
systems:
  - type: agent_search
    tools: [{name: slow, path: "${SLOW}#slow"${toolKeys}}]
`;
}

Deno.test("a run whose custom tool loads slowly says what it waits for and stops at load_timeout_s (exit 2)", async () => {
  await using t = await tempTree({
    "c.yaml": config(", load_timeout_s: 1.5"),
    "q.yaml": QUESTIONS,
  });
  const result = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`, `--allow-run=${Deno.execPath()}`],
    ["run", t.path("c.yaml"), "--mock", "--out", t.path("out")],
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /^Loading custom tool "slow" from ".*slow_load\.ts#slow": waiting for its module to load and prepare \(gives up after 1\.5 s; set load_timeout_s on the tool to change that\)…$/m,
  );
  assert.match(
    result.stderr,
    /^Cannot load custom tool "slow" from ".*slow_load\.ts#slow": it did not load within 1\.5 s; set load_timeout_s on the tool to allow longer\.$/m,
  );
  assert.ok(await waitUntil(() => toolProcesses("slow_load.ts").length === 0));
});

Deno.test("config: memory_mb and load_timeout_s of a custom tool are checked", async () => {
  const cases: Array<[string, RegExp]> = [
    [
      ", memory_mb: 8",
      /systems\[0\]\.tools\[0\]\.memory_mb: Too small: expected number to be >=32$/m,
    ],
    [", memory_mb: 1.5", /systems\[0\]\.tools\[0\]\.memory_mb: must be a whole number$/m],
    [
      ", load_timeout_s: 0",
      /systems\[0\]\.tools\[0\]\.load_timeout_s: Too small: expected number to be >0$/m,
    ],
    [
      ", load_timeout_secs: 5",
      /unknown key "load_timeout_secs" in systems\[0\]\.tools\[0\] — did you mean "load_timeout_s"\?$/m,
    ],
  ];

  for (const [keys, message] of cases) {
    await using t = await tempTree({ "c.yaml": config(keys), "q.yaml": QUESTIONS });
    const result = await runCli(["validate", t.path("c.yaml")]);
    assert.equal(result.code, 2, `${keys}: ${result.stderr}`);
    assert.match(result.stderr, message, keys);
  }
});
