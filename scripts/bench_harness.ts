// deno-lint-ignore-file no-console
/**
 * What the harness itself costs: ragbench `run --mock` against promptfoo
 * 0.121.20 with its `echo` provider, the same work on both sides — one
 * system (provider) answering N generated questions (test cases), each
 * scored by one `contains` check — measured at N = 200 and N = 2,000, each
 * side in a fresh process, wall time from spawn to exit.
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env \
 *     scripts/bench_harness.ts [--small 200] [--large 2000] [--rounds 3] [--skip-promptfoo]
 *
 * From the medians of `--rounds` runs: marginal cost per pair =
 * (t(large) − t(small)) / (large − small), fixed cost = t(small) − small ×
 * marginal. promptfoo is installed by the script with `npm install` into a
 * temporary folder (the npm registry must be reachable), and runs with its
 * cache, result writing, table, progress bar, telemetry and update check
 * off, its config folder in the temporary folder. ragbench runs with
 * `--quiet` and its default concurrency, writing its usual run directory
 * (results, summaries, report) into the temporary folder. Targets (issue
 * 8, item 11): ≤ 0.15 ms per pair and ≤ 0.3 s fixed for ragbench.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PROMPTFOO = "promptfoo@0.121.20";

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Deno.args[i + 1];
}

const small = Number(flag("small", "200"));
const large = Number(flag("large", "2000"));
const rounds = Number(flag("rounds", "3"));
const skipPromptfoo = Deno.args.includes("--skip-promptfoo");

function question(i: number): { id: string; question: string } {
  return { id: `q${i}`, question: `What is item number ${i} of the benchmark list?` };
}

function ragbenchInputs(dir: string, n: number): string {
  const lines = Array.from(
    { length: n },
    (_, i) => JSON.stringify({ ...question(i), checks: [{ type: "contains", value: `${i}` }] }),
  );
  Deno.writeTextFileSync(join(dir, `q${n}.jsonl`), lines.join("\n") + "\n");
  const config = join(dir, `ragbench${n}.yaml`);
  Deno.writeTextFileSync(
    config,
    `name: harness${n}
corpus: ${ROOT}arenas/rag/corpus.json
questions: q${n}.jsonl
systems:
  - {type: closed_book, name: closed_book}
`,
  );
  return config;
}

function promptfooInputs(dir: string, n: number): string {
  const tests = Array.from(
    { length: n },
    (_, i) =>
      `  - vars: {question: ${JSON.stringify(question(i).question)}}\n` +
      `    assert: [{type: contains, value: "${i}"}]`,
  );
  const config = join(dir, `promptfoo${n}.yaml`);
  Deno.writeTextFileSync(
    config,
    `prompts: ["{{question}}"]\nproviders: [echo]\ntests:\n${tests.join("\n")}\n`,
  );
  return config;
}

async function timed(
  command: string,
  args: string[],
  options: Deno.CommandOptions,
): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(command, { ...options, args, stdout: "null", stderr: "piped" })
    .output();
  const ms = performance.now() - started;
  if (!out.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

interface Side {
  name: string;
  run(n: number, round: number): Promise<number>;
}

async function measure(side: Side): Promise<{ name: string; small: number; large: number }> {
  const times = { small: [] as number[], large: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    times.small.push(await side.run(small, round));
    times.large.push(await side.run(large, round));
  }
  return { name: side.name, small: median(times.small), large: median(times.large) };
}

const work = await Deno.makeTempDir({ prefix: "ragbench_bench_harness_" });
try {
  const ragbenchConfigs = new Map([small, large].map((n) => [n, ragbenchInputs(work, n)]));
  const ragbench: Side = {
    name: "ragbench run --mock",
    run: (n, round) =>
      timed(Deno.execPath(), [
        "run",
        "--unstable-worker-options",
        "--unstable-raw-imports",
        `--allow-read=${ROOT},${work}`,
        `--allow-write=${work}`,
        join(ROOT, "main.ts"),
        "run",
        ragbenchConfigs.get(n)!,
        "--mock",
        "--quiet",
        "--out",
        join(work, `run-${n}-${round}`),
      ], { cwd: work, env: { NO_COLOR: "1" } }),
  };
  const sides: Side[] = [ragbench];
  if (!skipPromptfoo) {
    const prefix = join(work, "promptfoo");
    console.error(`installing ${PROMPTFOO} into ${prefix} ...`);
    await timed("npm", [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "--prefix",
      prefix,
      PROMPTFOO,
    ], { cwd: work });
    const promptfooConfigs = new Map([small, large].map((n) => [n, promptfooInputs(work, n)]));
    const env = {
      NO_COLOR: "1",
      PROMPTFOO_CONFIG_DIR: join(work, "promptfoo-home"),
      PROMPTFOO_DISABLE_TELEMETRY: "1",
      PROMPTFOO_DISABLE_UPDATE: "1",
      PROMPTFOO_CACHE_ENABLED: "false",
    };
    sides.push({
      name: `${PROMPTFOO} eval (echo)`,
      run: (n) =>
        timed("node", [
          join(prefix, "node_modules/promptfoo/dist/src/entrypoint.js"),
          "eval",
          "-c",
          promptfooConfigs.get(n)!,
          "--no-cache",
          "--no-write",
          "--no-table",
          "--no-progress-bar",
        ], { cwd: work, env }),
    });
  }
  console.log(
    `# harness overhead: one system × N questions, one contains check each; N = ${small} and ${large}; ` +
      `median of ${rounds} fresh processes per point`,
  );
  console.log("side | t(small) s | t(large) s | per pair ms | fixed s");
  const results = [];
  for (const side of sides) {
    const r = await measure(side);
    const perPair = (r.large - r.small) / (large - small);
    const fixed = r.small - small * perPair;
    results.push({ ...r, perPair, fixed });
    console.log(
      `${r.name} | ${(r.small / 1000).toFixed(2)} | ${(r.large / 1000).toFixed(2)} | ${
        perPair.toFixed(3)
      } | ${(fixed / 1000).toFixed(2)}`,
    );
  }
  if (results.length === 2) {
    const [rb, pf] = results;
    console.log(
      `ratio ragbench / promptfoo: per pair ${(rb.perPair / pf.perPair).toFixed(3)}×, fixed ${
        (rb.fixed / pf.fixed).toFixed(3)
      }×`,
    );
  }
  const [rb] = results;
  console.log(
    `ragbench targets: per pair ${rb.perPair.toFixed(3)} ms (≤ 0.15: ${
      rb.perPair <= 0.15 ? "met" : "not met"
    }), ` +
      `fixed ${(rb.fixed / 1000).toFixed(2)} s (≤ 0.3: ${rb.fixed <= 300 ? "met" : "not met"})`,
  );
} finally {
  await Deno.remove(work, { recursive: true });
}
