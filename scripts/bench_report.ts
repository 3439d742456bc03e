// deno-lint-ignore-file no-console
/**
 * Benchmark of `ragbench report RUN_DIR` on a large run, against a bare
 * `JSON.parse` pass over the same file, each in a fresh process.
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env \
 *     scripts/bench_report.ts [--lines 100000] [--systems 10] [--keep DIR]
 *
 * The run: `--lines` result lines (default 100,000: `--systems` systems ×
 * lines/systems questions), made by repeating the lines of a real
 * `configs/all.yaml --mock` run (run first, in a temporary folder) with new
 * system names, question ids and deterministic scores, so every line has the
 * shape and size of a real one.
 *
 * Both sides read the same `per_question_results.jsonl`, streamed in chunks
 * and split into lines the same way:
 * - peer: `JSON.parse` of every line, nothing else (the floor of any reader);
 * - ragbench: `reportCommand` — parse, slim, summaries, statistics,
 *   recommendation, and writing metrics_summary.csv, tool_usage.csv,
 *   recommendation.json, summary.md and report.html.
 * Each side runs in its own `deno run` process; it reports its wall time
 * from the start of the work (after imports) and its peak resident memory
 * (`Deno.memoryUsage().rss` sampled every 10 ms: Deno refuses to read
 * /proc/self/status without --allow-all). Printed: both times, the ratio (target
 * ≤ 3×), peak RSS against the file's size (target < 2×), and the report's
 * size.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i === -1 ? fallback : Deno.args[i + 1];
}

// Deno refuses /proc/self/status without --allow-all, so the peak is sampled:
// Deno.memoryUsage().rss every 10 ms (timers fire between the chunks both
// sides await) and once at the end.
let peakRss = 0;
function samplePeak(): ReturnType<typeof setInterval> {
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  }, 10);
  return timer;
}
function peakRssMb(): number {
  return Math.max(peakRss, Deno.memoryUsage().rss) / 2 ** 20;
}

async function parseOnly(path: string): Promise<number> {
  const file = await Deno.open(path);
  let rest = "";
  let n = 0;
  for await (const chunk of file.readable.pipeThrough(new TextDecoderStream())) {
    let start = 0;
    let newline: number;
    const text = rest + chunk;
    while ((newline = text.indexOf("\n", start)) !== -1) {
      if (newline > start) {
        JSON.parse(text.slice(start, newline));
        n++;
      }
      start = newline + 1;
    }
    rest = text.slice(start);
  }
  return n;
}

async function child(mode: string, dir: string): Promise<void> {
  const timer = samplePeak();
  const started = performance.now();
  if (mode === "parse") {
    await parseOnly(join(dir, "per_question_results.jsonl"));
  } else {
    const { reportCommand } = await import("../lib/cli/report_command.ts");
    const t0 = performance.now();
    await reportCommand({ positionals: [dir], options: new Map() }, {
      out: () => {},
      progress: () => {},
      signal: new AbortController().signal,
    });
    // Import time is not the report's work: measure from after the import.
    clearInterval(timer);
    console.log(JSON.stringify({ ms: performance.now() - t0, peak_mb: peakRssMb() }));
    return;
  }
  clearInterval(timer);
  console.log(JSON.stringify({ ms: performance.now() - started, peak_mb: peakRssMb() }));
}

async function makeRun(dir: string, lines: number, systems: number): Promise<void> {
  const seed = join(dir, "seed");
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--unstable-raw-imports",
      "--allow-read",
      `--allow-write=${dir}`,
      // The config's code_agent starts its program sandbox with the Deno executable.
      `--allow-run=${Deno.execPath()}`,
      join(ROOT, "main.ts"),
      "run",
      join(ROOT, "configs/all.yaml"),
      "--mock",
      "--out",
      seed,
      "--quiet",
    ],
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!run.success) throw new Error("the seed run failed");
  const templates = Deno.readTextFileSync(join(seed, "per_question_results.jsonl")).trimEnd()
    .split("\n").map((l) => JSON.parse(l));
  const out = join(dir, "run");
  Deno.mkdirSync(out);
  const file = Deno.openSync(join(out, "per_question_results.jsonl"), {
    write: true,
    create: true,
  });
  const encoder = new TextEncoder();
  const perSystem = Math.ceil(lines / systems);
  let buffer = "";
  let written = 0;
  for (let s = 0; s < systems && written < lines; s++) {
    for (let q = 0; q < perSystem && written < lines; q++) {
      const t = templates[(q * 7 + s) % templates.length];
      const score = ((q * 31 + s * 17) % 10) / 10 >= 0.3 ? 1 : 0.5;
      buffer += JSON.stringify({
        ...t,
        system: `system_${s}`,
        question_id: `q${q}`,
        answer_score: score,
        passed: score === 1,
      }) + "\n";
      written++;
      if (buffer.length > 1 << 20) {
        file.writeSync(encoder.encode(buffer));
        buffer = "";
      }
    }
  }
  file.writeSync(encoder.encode(buffer));
  file.close();
}

async function measure(mode: string, dir: string): Promise<{ ms: number; peak_mb: number }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      fileURLToPath(import.meta.url),
      "--child",
      mode,
      dir,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`the ${mode} process failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").pop()!);
}

if (Deno.args[0] === "--child") {
  await child(Deno.args[1], Deno.args[2]);
} else {
  const lines = Number(flag("lines", "100000"));
  const systems = Number(flag("systems", "10"));
  const keep = flag("keep", "");
  const dir = keep || await Deno.makeTempDir({ prefix: "ragbench_bench_report_" });
  try {
    await makeRun(dir, lines, systems);
    const run = join(dir, "run");
    const fileMb = Deno.statSync(join(run, "per_question_results.jsonl")).size / 2 ** 20;
    console.log(`run: ${lines} lines, ${systems} systems, ${fileMb.toFixed(1)} MB of JSONL`);
    const parse = await measure("parse", run);
    const report = await measure("report", run);
    const htmlMb = Deno.statSync(join(run, "report.html")).size / 2 ** 20;
    const ratio = report.ms / parse.ms;
    const rss = report.peak_mb / fileMb;
    console.log(
      `peer   JSON.parse pass   ${(parse.ms / 1000).toFixed(2)} s   peak RSS ${
        parse.peak_mb.toFixed(0)
      } MB`,
    );
    console.log(
      `ragbench report          ${(report.ms / 1000).toFixed(2)} s   peak RSS ${
        report.peak_mb.toFixed(0)
      } MB   report.html ${htmlMb.toFixed(1)} MB`,
    );
    console.log(
      `time ratio report / parse: ${ratio.toFixed(2)}× (target ≤ 3×) ${
        ratio <= 3 ? "PASS" : "FAIL"
      }`,
    );
    console.log(
      `peak RSS / file size: ${rss.toFixed(2)}× (target < 2×) ${rss < 2 ? "PASS" : "FAIL"}`,
    );
  } finally {
    if (!keep) await Deno.remove(dir, { recursive: true });
  }
}
