// deno-lint-ignore-file no-console
/**
 * What each agent framework costs over agent_search on the same mock trace:
 * the rag arena (15 questions) under the scripted mock model, every system
 * with the same model, tools (search over the same BM25 index) and prompt,
 * run in this process by the runner, one question at a time, `--rounds`
 * times after one round of warm-up. For each framework:
 *
 * - import: milliseconds from starting its process to the framework loaded
 *   (median of `--imports` starts), and the same less the start of a process
 *   that loads no framework (`frameworks_plain_adapter.ts`);
 * - ms/step: wall time per step (a model call or a tool call), and what it
 *   adds over agent_search in this process and over the plain loop in a
 *   process of its own (the latter is the framework alone, without the
 *   process and its line protocol);
 * - KB/step allocated in the framework's process and in ragbench's: V8 heap
 *   growth over one question, per step, median over every question of every
 *   round (a question during which a collection ran shows less, and the
 *   median sets it aside; a large young generation, `--min-semi-space-size`,
 *   here and in the framework's process, makes collections rare).
 *
 *   deno run --unstable-worker-options --unstable-raw-imports --allow-read --allow-run \
 *     --allow-env --v8-flags=--min-semi-space-size=64,--max-semi-space-size=64 \
 *     scripts/bench_frameworks.ts [--rounds 3] [--imports 3]
 *
 * Needs the frameworks in Deno's cache (`deno task cache:frameworks`).
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRun } from "../lib/plan/setup.ts";
import { planSystems } from "../lib/plan/plan.ts";
import { priceRun } from "../lib/plan/price_checks.ts";
import { createModels } from "../lib/llm/select.ts";
import { type PlannedSystem, runQuestions } from "../lib/run/runner.ts";
import { AGENT_SEARCH_PROMPT } from "../systems/agent_search.ts";
import { type FrameworkManifest, FRAMEWORKS } from "../systems/frameworks/registry.ts";
import { createFrameworkHost, type FrameworkHost } from "../systems/frameworks/host.ts";
import { runFrameworkLoop } from "../systems/frameworks/framework_loop.ts";
import type { AgentLimits } from "../systems/agent_loop.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Deno.args[i + 1];
}
const rounds = Number(flag("rounds", "3"));
const imports = Number(flag("imports", "3"));

const PLAIN: FrameworkManifest = {
  type: "plain_process",
  description: "agent_search's loop in a framework process, no framework",
  packages: [],
  adapter: new URL("./frameworks_plain_adapter.ts", import.meta.url),
  permissions: [],
  env: {},
};

/** The framework processes' young generation, as large as this process's (see the module doc). */
const CHILD_V8 = ["--min-semi-space-size=64", "--max-semi-space-size=64"];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function importMs(manifest: FrameworkManifest): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < imports; i++) {
    const host = createFrameworkHost(manifest, { v8Flags: CHILD_V8 });
    const started = performance.now();
    await host.ready();
    times.push(performance.now() - started);
    await host.close();
  }
  return median(times);
}

const loaded = await loadRun(join(ROOT, "configs/frameworks.yaml"), { mock: true });
const config = {
  ...loaded.config,
  systems: loaded.config.systems.filter((s) => s.type === "agent_search"),
};
const models = await createModels(config.systems, {
  mock: true,
  script: loaded.script,
  prices: await priceRun(loaded.config, { mock: true }),
});
const plan = await planSystems(config, loaded.corpus, { concurrency: 1, models, mock: true });
const agent = plan.systems[0];
await agent.ready;

function frameworkSystem(manifest: FrameworkManifest, host: FrameworkHost): PlannedSystem {
  return {
    ...agent,
    name: manifest.type,
    def: {
      ...agent.def,
      type: manifest.type,
      run: (options, ctx) =>
        runFrameworkLoop(host, ctx, {
          type: manifest.type,
          system: AGENT_SEARCH_PROMPT,
          limits: options as unknown as AgentLimits,
        }),
    },
  };
}

interface Measured {
  msPerStep: number;
  mainBytesPerStep: number;
  childBytesPerStep: number;
}

async function measure(system: PlannedSystem, host: FrameworkHost | null): Promise<Measured> {
  const ask = async (questions: typeof loaded.questions) => {
    let failed = 0;
    let steps = 0;
    await runQuestions({
      systems: [system],
      questions,
      repeats: 1,
      concurrency: 1,
      questionTimeoutMs: 120_000,
      maxCostUsd: null,
      done: new Set(),
      // The runner keeps no result: what is counted is counted as each one is handed over.
      sink: (r) => {
        if (!r.passed) failed++;
        steps += r.steps.length;
        return Promise.resolve();
      },
      reporter: { onResult() {} },
      signal: new AbortController().signal,
    });
    if (failed) throw new Error(`${system.name}: ${failed} questions failed`);
    return steps;
  };
  await ask(loaded.questions); // warm-up: the framework's code compiled, its caches filled
  // Time: whole rounds.
  let steps = 0;
  const started = performance.now();
  for (let r = 0; r < rounds; r++) steps += await ask(loaded.questions);
  const ms = performance.now() - started;
  // Allocation: heap growth over one question, per step; a question during which a collection ran
  // shows less (or a fall), and the median over every question of every round sets those aside.
  const main: number[] = [];
  const child: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const question of loaded.questions) {
      const mainBefore = Deno.memoryUsage().heapUsed;
      const childBefore = host ? await host.heapUsed() : 0;
      const n = await ask([question]);
      const childAfter = host ? await host.heapUsed() : 0;
      main.push((Deno.memoryUsage().heapUsed - mainBefore) / n);
      child.push((childAfter - childBefore) / n);
    }
  }
  return {
    msPerStep: ms / steps,
    mainBytesPerStep: median(main),
    childBytesPerStep: median(child),
  };
}

const kb = (bytes: number) => (bytes >= 0 ? (bytes / 1024).toFixed(1) : "n/a");
const signed = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(3)}`;

try {
  console.log(
    `ragbench bench_frameworks: rag arena under --mock, ${rounds} round(s) of ${loaded.questions.length} questions, one at a time; import: median of ${imports} process starts`,
  );
  const base = await measure(agent, null);
  const plainImport = await importMs(PLAIN);
  const plainHost = createFrameworkHost(PLAIN, { v8Flags: CHILD_V8 });
  await plainHost.ready();
  const plain = await measure(frameworkSystem(PLAIN, plainHost), plainHost);
  await plainHost.close();
  const rows: string[][] = [[
    "system",
    "import ms",
    "over plain",
    "ms/step",
    "vs agent_search",
    "vs plain process",
    "KB/step framework",
    "KB/step ragbench",
  ]];
  rows.push([
    "agent_search",
    "-",
    "-",
    base.msPerStep.toFixed(3),
    "",
    "",
    "-",
    kb(base.mainBytesPerStep),
  ]);
  rows.push([
    "plain process",
    plainImport.toFixed(0),
    "",
    plain.msPerStep.toFixed(3),
    signed(plain.msPerStep - base.msPerStep),
    "",
    kb(plain.childBytesPerStep),
    kb(plain.mainBytesPerStep),
  ]);
  for (const manifest of FRAMEWORKS.values()) {
    const load = await importMs(manifest);
    const host = createFrameworkHost(manifest, { v8Flags: CHILD_V8 });
    try {
      await host.ready();
      const m = await measure(frameworkSystem(manifest, host), host);
      rows.push([
        manifest.type,
        load.toFixed(0),
        `+${(load - plainImport).toFixed(0)}`,
        m.msPerStep.toFixed(3),
        signed(m.msPerStep - base.msPerStep),
        signed(m.msPerStep - plain.msPerStep),
        kb(m.childBytesPerStep),
        kb(m.mainBytesPerStep),
      ]);
    } finally {
      await host.close();
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows) console.log(row.map((c, i) => c.padStart(widths[i])).join("  "));
} finally {
  await plan.close();
}
