// deno-lint-ignore-file no-console
/**
 * A run of many results in bounded memory (issue 24 item 5): a `--mock` run of `--systems` ×
 * `--questions` results (default 100 × 10,000 = 1,000,000) over a synthetic question set and the
 * rag arena's corpus, then `ragbench report` over its results file, against a bare `JSON.parse`
 * pass over the same file (the floor of any reader). Each runs in a fresh child process under GNU
 * time (`/usr/bin/time -f %M`: the kernel's high-water mark of resident memory).
 *
 *     deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=loadavg \
 *       scripts/bench_million.ts [--systems 100] [--questions 10000] [--keep DIR]
 *
 * The systems alternate between `closed_book` and `rag` over BM25 (so half the lines carry a
 * retrieval step and a ranking), every question has an answer check, and the mock answers each
 * from its retrieved passage. Printed: results, the file's size, the run's wall time and peak RSS
 * (target < 1.5 GB at 1,000,000 results), the report's and the parse pass's wall and CPU (user +
 * system) time and peak RSS, the ratios (targets: report <= 3x the parse pass's time, peak < 2x
 * the file's size; the CPU ratio too, since on a loaded machine wall time mostly measures the
 * other processes), and the load average.
 * One PASS/FAIL line per target; exit 1 when one fails.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const UNSTABLE = ["--unstable-worker-options", "--unstable-raw-imports"];

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Deno.args[i + 1];
}

const systems = Number(flag("systems", "100"));
const questions = Number(flag("questions", "10000"));
const keep = flag("keep", "");
if (!(systems >= 1 && questions >= 1)) {
  console.log("--systems and --questions take whole numbers >= 1");
  Deno.exit(2);
}

/** Runs `deno <args>` under GNU time; wall and CPU (user + system) seconds and peak RSS in MB. */
async function timed(
  args: string[],
): Promise<{ seconds: number; cpu: number; peakMb: number; out: string }> {
  const started = performance.now();
  const output = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "PEAK_KB=%M CPU=%U+%S", Deno.execPath(), ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const seconds = (performance.now() - started) / 1000;
  const stderr = new TextDecoder().decode(output.stderr);
  const peak = /PEAK_KB=(\d+) CPU=([\d.]+)\+([\d.]+)/.exec(stderr);
  if (!output.success || peak === null) {
    throw new Error(`deno ${args.join(" ")} failed:\n${stderr.slice(-4000)}`);
  }
  return {
    seconds,
    cpu: Number(peak[2]) + Number(peak[3]),
    peakMb: Number(peak[1]) / 1024,
    out: new TextDecoder().decode(output.stdout),
  };
}

const PARSE_PASS = `
const file = await Deno.open(Deno.args[0]);
let rest = "";
let n = 0;
for await (const chunk of file.readable.pipeThrough(new TextDecoderStream())) {
  const text = rest + chunk;
  let start = 0;
  let newline;
  while ((newline = text.indexOf("\\n", start)) !== -1) {
    if (newline > start) {
      JSON.parse(text.slice(start, newline));
      n++;
    }
    start = newline + 1;
  }
  rest = text.slice(start);
}
console.log(n);
`;

const dir = keep || await Deno.makeTempDir({ prefix: "ragbench_million_" });
if (keep) await Deno.mkdir(keep, { recursive: true });
try {
  const lines: string[] = [];
  for (let q = 0; q < questions; q++) {
    lines.push(
      `- {id: q${q}, question: "How tall is the tower number ${q} near Mount Everest?", ` +
        `answers: ["${q}"], evidence: [mount_everest], checks: [{type: contains, value: "${q}"}]}`,
    );
  }
  await Deno.writeTextFile(join(dir, "questions.yaml"), lines.join("\n") + "\n");
  const systemLines: string[] = [];
  for (let s = 0; s < systems; s++) {
    systemLines.push(
      s % 2 === 0
        ? `  - {type: closed_book, name: closed_${s}}`
        : `  - {type: rag, name: rag_${s}, retriever: bm25}`,
    );
  }
  await Deno.writeTextFile(
    join(dir, "config.yaml"),
    `name: million
corpus: ${join(ROOT, "arenas/rag/corpus.json")}
questions: questions.yaml
evaluation: {concurrency: 16}
retrievers:
  bm25: {kind: bm25, top_k: 5}
systems:
${systemLines.join("\n")}
`,
  );
  const out = join(dir, "run");
  const permissions = [
    `--allow-read=${ROOT},${dir}`,
    `--allow-write=${dir}`,
    `--allow-run=${Deno.execPath()}`,
  ];
  console.log(`${systems} systems × ${questions} questions = ${systems * questions} results`);
  const run = await timed([
    "run",
    ...UNSTABLE,
    ...permissions,
    "main.ts",
    "run",
    join(dir, "config.yaml"),
    "--mock",
    "--quiet",
    "--out",
    out,
  ]);
  const results = join(out, "per_question_results.jsonl");
  const fileMb = (await Deno.stat(results)).size / 2 ** 20;
  console.log(
    `run: ${run.seconds.toFixed(1)} s (CPU ${run.cpu.toFixed(1)} s), peak RSS ${
      run.peakMb.toFixed(0)
    } MB; results file ` +
      `${fileMb.toFixed(0)} MB`,
  );
  const script = join(dir, "parse_pass.ts");
  await Deno.writeTextFile(script, PARSE_PASS);
  const parse = await timed(["run", `--allow-read=${dir}`, script, results]);
  const report = await timed([
    "run",
    ...UNSTABLE,
    `--allow-read=${ROOT},${dir}`,
    `--allow-write=${out}`,
    "main.ts",
    "report",
    out,
  ]);
  console.log(
    `parse pass: ${parse.seconds.toFixed(1)} s (CPU ${parse.cpu.toFixed(1)} s), peak RSS ${
      parse.peakMb.toFixed(0)
    } MB (${parse.out.trim()} lines)`,
  );
  console.log(
    `report: ${report.seconds.toFixed(1)} s (CPU ${report.cpu.toFixed(1)} s), peak RSS ${
      report.peakMb.toFixed(0)
    } MB`,
  );
  console.log(`load average: ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  const checks: Array<[string, boolean]> = [
    [
      `run peak RSS < 1.5 GB at ${systems * questions} results (${run.peakMb.toFixed(0)} MB)`,
      run.peakMb < 1536,
    ],
    [
      `report <= 3x the parse pass's time (${(report.seconds / parse.seconds).toFixed(2)}x)`,
      report.seconds <= 3 * parse.seconds,
    ],
    // On a loaded machine wall time says more about the other processes than about these two.
    [
      `report <= 3x the parse pass's CPU time (${(report.cpu / parse.cpu).toFixed(2)}x)`,
      report.cpu <= 3 * parse.cpu,
    ],
    [
      `report peak RSS < 2x the file (${(report.peakMb / fileMb).toFixed(2)}x)`,
      report.peakMb < 2 * fileMb,
    ],
  ];
  for (const [what, ok] of checks) console.log(`${ok ? "PASS" : "FAIL"} ${what}`);
  if (checks.some(([, ok]) => !ok)) Deno.exitCode = 1;
} finally {
  if (!keep) await Deno.remove(dir, { recursive: true });
}
