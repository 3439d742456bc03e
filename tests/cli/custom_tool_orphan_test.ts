import assert from "node:assert/strict";
import { ROOT, spawnCli } from "../support/cli.ts";
import { toolProcesses } from "../support/probe_host.ts";
import { waitUntil } from "../support/wait.ts";
import { tempTree } from "../support/temp.ts";

const SPIN_CALL = `import { defineTool, z } from "ragbench/tool";
export const spin = defineTool({
  name: "spin",
  description: "Spin forever.",
  parameters: z.object({}),
  sideEffects: "none",
  run() {
    for (;;) { /* runaway */ }
  },
});
`;

// The module itself never finishes loading: its top-level code spins.
const SPIN_LOAD = `for (;;) { /* runaway at load */ }
export const spin = {};
`;

/** Starts `ragbench run` on a config whose only tool is `spin.ts`; returns it and the marker. */
async function startRun(t: Awaited<ReturnType<typeof tempTree>>) {
  const child = spawnCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`, `--allow-run=${Deno.execPath()}`],
    ["run", t.path("c.yaml"), "--mock", "--out", t.path("out")],
  );
  const marker = t.path("spin.ts");
  const started = await waitUntil(() => toolProcesses(marker).length > 0);
  return { child, marker, started };
}

const cases: Array<{ signal: Deno.Signal; source: string; when: string }> = [
  { signal: "SIGTERM", source: SPIN_CALL, when: "during a CPU-bound call" },
  { signal: "SIGHUP", source: SPIN_CALL, when: "during a CPU-bound call" },
  { signal: "SIGKILL", source: SPIN_CALL, when: "during a CPU-bound call" },
  { signal: "SIGKILL", source: SPIN_LOAD, when: "while the tool's module spins as it loads" },
];

for (const c of cases) {
  Deno.test(`${c.signal} to ragbench ${c.when}: no tool process outlives it`, async () => {
    await using t = await tempTree({
      "spin.ts": c.source,
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
    const { child, marker, started } = await startRun(t);
    try {
      assert.ok(started, "the tool's process started");
      await new Promise((r) => setTimeout(r, 1000)); // it is spinning now
      child.kill(c.signal);
      await child.status;
      assert.ok(
        await waitUntil(() => toolProcesses(marker).length === 0),
        `tool processes left: ${toolProcesses(marker).join(", ")}`,
      );
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.output().catch(() => {});
      for (const pid of toolProcesses(marker)) Deno.kill(pid, "SIGKILL");
    }
  });
}
