// deno-lint-ignore-file no-console
/**
 * What the harness itself costs: ragbench `run --mock` against promptfoo
 * 0.121.20 with its `echo` provider, the same work on both sides — a system
 * (provider) answering N generated questions (test cases), each answer
 * scored by one `contains` check — measured at N = 200 and N = 2,000, each
 * side in a fresh process, wall time from spawn to exit.
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env \
 *     scripts/bench_harness.ts [--small 200] [--large 2000] [--rounds 5] [--skip-promptfoo] \
 *       [--root DIR] [--code-small 10] [--code-large 40] [--skip-per-loop]
 *
 * ragbench is measured twice: with `closed_book` alone (the like-for-like
 * peer of promptfoo's one echo provider), and with the loops of issue 8
 * together — `closed_book`, `agent_search` (native function calling),
 * `agent_search` with `agent_mode: react_json`, `rag` over BM25 and
 * `grep_agent` — driven by a mock script that makes each agent take tool
 * steps (a `search` for the search agents, `corpus_grep` then
 * `read_document` for grep_agent), so the trace, trajectory and failure
 * metrics are all computed. Its per-pair figure is per system × question.
 * `code_agent` is left out of that figure: it starts a sandboxed
 * subprocess per question, so its cost is of another order; it is
 * measured on its own (per question, from `--code-small` against
 * `--code-large` questions) and printed below. Then each of the five loops
 * is measured alone (unless `--skip-per-loop`), the same way: its per-pair
 * and fixed figures, and its fixed figure less closed_book's (what the loop
 * adds to a run's start: its index, the sandbox worker, its modules).
 *
 * From the medians of `--rounds` runs: marginal cost per pair =
 * (t(large) − t(small)) / ((large − small) × systems), fixed cost =
 * t(small) − small × systems × marginal; the targets line also gives the
 * fixed figure of each round alone (its own small and large run), lowest
 * to highest, to show how far one measurement strays on the machine at
 * hand. promptfoo is installed by the
 * script with `npm install` into a temporary folder (the npm registry must
 * be reachable), and runs with its cache, result writing, table, progress
 * bar, telemetry and update check off, its config folder in the temporary
 * folder. ragbench runs with `--quiet` and its default concurrency, writing
 * its usual run directory (results, summaries, report) into the temporary
 * folder. `--root` measures another checkout of ragbench (e.g. main, for a
 * before/after). Targets (issue 8, item 11): ≤ 0.15 ms per pair and ≤ 0.3 s
 * fixed for ragbench with the loops included.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const PROMPTFOO = "promptfoo@0.121.20";

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Deno.args[i + 1];
}

const ROOT = join(flag("root", fileURLToPath(new URL("../", import.meta.url))), "/");

const small = Number(flag("small", "200"));
const large = Number(flag("large", "2000"));
const rounds = Number(flag("rounds", "5"));
const codeSmall = Number(flag("code-small", "10"));
const codeLarge = Number(flag("code-large", "40"));
const skipPromptfoo = Deno.args.includes("--skip-promptfoo");
const skipPerLoop = Deno.args.includes("--skip-per-loop");

/** The five loops measured together, by name, as YAML flow mappings. */
const LOOPS = new Map<string, string>([
  ["closed_book", "{type: closed_book, name: closed_book}"],
  ["agent_native", "{type: agent_search, name: agent_native}"],
  ["agent_react", "{type: agent_search, name: agent_react, agent_mode: react_json}"],
  ["rag_bm25", "{type: rag, name: rag_bm25, retriever: bm25}"],
  ["grep_agent", "{type: grep_agent, name: grep_agent}"],
]);

/** The systems of each ragbench side: the loops together, each loop alone, code_agent. */
const SYSTEM_SETS = new Map<string, string[]>([
  ...[...LOOPS].map(([name, system]): [string, string[]] => [name, [system]]),
  ["loops", [...LOOPS.values()]],
  ["code_agent", ["{type: code_agent, name: code_agent}"]],
]);

/**
 * One entry for every generated question: the search agents search, the
 * index-free grep agent greps and reads instead, closed_book recalls.
 */
const MOCK_SCRIPT = `"of the benchmark list":
  - { call: search, args: { query: Eiffel Tower completed year } }
  - { call: corpus_grep, args: { pattern: Eiffel completed }, instead_of: search }
  - { call: read_document, args: { doc_id: eiffel_tower }, instead_of: search }
  - { answer: "The Eiffel Tower was completed in 1889 [eiffel_tower]." }
  - { recall: "It was completed in 1889." }
`;

function question(i: number): { id: string; question: string } {
  return { id: `q${i}`, question: `What is item number ${i} of the benchmark list?` };
}

function ragbenchInputs(dir: string, n: number, set: string): string {
  const questions = join(dir, `q${n}.jsonl`);
  const lines = Array.from(
    { length: n },
    (_, i) => JSON.stringify({ ...question(i), checks: [{ type: "contains", value: `${i}` }] }),
  );
  Deno.writeTextFileSync(questions, lines.join("\n") + "\n");
  Deno.writeTextFileSync(join(dir, "mock.yaml"), MOCK_SCRIPT);
  const config = join(dir, `ragbench_${set}_${n}.yaml`);
  Deno.writeTextFileSync(
    config,
    `name: harness_${set}_${n}
corpus: ${ROOT}arenas/rag/corpus.json
questions: q${n}.jsonl
mock_script: mock.yaml
retrievers:
  bm25: {kind: bm25, top_k: 5}
systems:
${SYSTEM_SETS.get(set)!.map((system) => `  - ${system}`).join("\n")}
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
  /** Systems per question: the per-pair figure is per system × question. */
  systems: number;
  small: number;
  large: number;
  run(n: number, round: number): Promise<number>;
}

interface Measured {
  name: string;
  small: number;
  large: number;
  perPair: number;
  fixed: number;
  /** The fixed figure of each round on its own (its small and large run), lowest and highest. */
  fixedSpread: [number, number];
}

async function measure(side: Side): Promise<Measured> {
  const times = { small: [] as number[], large: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    times.small.push(await side.run(side.small, round));
    times.large.push(await side.run(side.large, round));
  }
  const fixedOf = (tSmall: number, tLarge: number) =>
    tSmall - side.small * (tLarge - tSmall) / (side.large - side.small);
  const t = { small: median(times.small), large: median(times.large) };
  const perPair = (t.large - t.small) / ((side.large - side.small) * side.systems);
  const fixed = fixedOf(t.small, t.large);
  const perRound = times.small.map((tSmall, i) => fixedOf(tSmall, times.large[i]));
  return {
    name: side.name,
    ...t,
    perPair,
    fixed,
    fixedSpread: [Math.min(...perRound), Math.max(...perRound)],
  };
}

function row(r: Measured): string {
  return `${r.name} | ${(r.small / 1000).toFixed(2)} | ${(r.large / 1000).toFixed(2)} | ${
    r.perPair.toFixed(3)
  } | ${(r.fixed / 1000).toFixed(2)}`;
}

const work = await Deno.makeTempDir({ prefix: "ragbench_bench_harness_" });
try {
  const ragbenchSide = (set: string, sizes: [number, number]): Side => {
    const configs = new Map(sizes.map((n) => [n, ragbenchInputs(work, n, set)]));
    const systems = SYSTEM_SETS.get(set)!.length;
    return {
      name: `ragbench run --mock (${set}${systems > 1 ? `, ${systems} systems` : ""})`,
      systems,
      small: sizes[0],
      large: sizes[1],
      run: (n, round) =>
        timed(Deno.execPath(), [
          "run",
          "--unstable-worker-options",
          "--unstable-raw-imports",
          `--allow-read=${ROOT},${work}`,
          `--allow-write=${work}`,
          `--allow-run=${Deno.execPath()}`,
          join(ROOT, "main.ts"),
          "run",
          configs.get(n)!,
          "--mock",
          "--quiet",
          "--out",
          join(work, `run-${set}-${n}-${round}`),
        ], { cwd: work, env: { NO_COLOR: "1" } }),
    };
  };
  const sides: Side[] = [
    ragbenchSide("closed_book", [small, large]),
    ragbenchSide("loops", [small, large]),
  ];
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
      systems: 1,
      small,
      large,
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
    `# harness overhead: N generated questions, one contains check each; N = ${small} and ${large}; ` +
      `median of ${rounds} fresh processes per point; ragbench at ${ROOT}`,
  );
  console.log("side | t(small) s | t(large) s | per pair ms | fixed s");
  const results = new Map<string, Measured>();
  for (const side of sides) {
    const r = await measure(side);
    results.set(side.name, r);
    console.log(row(r));
  }
  const [closedBook, loops, promptfoo] = [...results.values()];
  if (promptfoo) {
    for (const rb of [closedBook, loops]) {
      console.log(
        `ratio ${rb.name} / promptfoo: per pair ${(rb.perPair / promptfoo.perPair).toFixed(3)}×, ` +
          `fixed ${(rb.fixed / promptfoo.fixed).toFixed(3)}×`,
      );
    }
  }
  for (const rb of [closedBook, loops]) {
    console.log(
      `targets, ${rb.name}: per pair ${rb.perPair.toFixed(3)} ms (≤ 0.15: ${
        rb.perPair <= 0.15 ? "met" : "not met"
      }), fixed ${(rb.fixed / 1000).toFixed(2)} s (≤ 0.3: ${
        rb.fixed <= 300 ? "met" : "not met"
      }; single rounds ${rb.fixedSpread.map((f) => (f / 1000).toFixed(2)).join("–")} s)`,
    );
  }
  if (!skipPerLoop) {
    // Each loop alone, in its own processes: what it costs a pair, and what it adds to the fixed
    // cost of a run of closed_book alone (its index, its worker, its modules).
    console.log(
      `per loop (each alone; N = ${small} and ${large}; fixed over closed_book alone = what the ` +
        `loop adds to a run's start):`,
    );
    console.log(
      "loop | t(small) s | t(large) s | per pair ms | fixed s | fixed over closed_book s",
    );
    for (const loop of LOOPS.keys()) {
      const r = loop === "closed_book" ? closedBook : await measure(ragbenchSide(loop, [
        small,
        large,
      ]));
      console.log(
        `${loop} | ${row(r).split(" | ").slice(1).join(" | ")} | ${
          ((r.fixed - closedBook.fixed) / 1000).toFixed(2)
        }`,
      );
    }
  }
  const code = await measure(ragbenchSide("code_agent", [codeSmall, codeLarge]));
  console.log(
    `code_agent alone (a sandboxed subprocess per question; N = ${codeSmall} and ${codeLarge}, ` +
      `not in the per-pair figures): ${code.perPair.toFixed(1)} ms per question, fixed ${
        (code.fixed / 1000).toFixed(2)
      } s`,
  );
} finally {
  await Deno.remove(work, { recursive: true });
}
