// deno-lint-ignore-file no-console
/**
 * The test suite's time, one test module at a time against `--parallel`
 * (the way `deno task test` runs it): wall time and CPU time (user + system
 * of `deno test` and everything it waited for), and their ratios.
 *
 *   deno run --allow-read --allow-run --allow-sys=loadavg scripts/bench_test_suite.ts \
 *     [--rounds 1] [PATH ...]
 *
 * PATH defaults to `tests/`; give a few folders or files to measure a part
 * of the suite. The two ways alternate within each round, so a change of the
 * machine's load meets both; the load average is printed with each figure.
 * CPU time does not grow with the load (time spent waiting for a core is not
 * in it); wall time does, so compare the wall ratio only between runs under
 * a similar load. Flags are those of the `test` task in deno.json (minus
 * `--parallel` for the one-at-a-time way); the CPU time comes from `sh`'s
 * `times`, which counts every process `sh` waited for.
 *
 * @module
 */

import { parseArgs } from "node:util";

const TASK_FLAGS = [
  "--no-check",
  "--unstable-worker-options",
  "--unstable-raw-imports",
  "--preload=tests/support/reaper.ts",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-env",
  "--allow-net=127.0.0.1",
  "--allow-sys=osRelease",
];

interface Measure {
  wallS: number;
  cpuS: number;
  load: number;
  summary: string;
}

/** `sh`'s `times` prints two lines "Xm Y.YYs Zm W.WWs": the shell's own, then its children's. */
function childrenCpuS(times: string): number {
  const line = times.trim().split("\n").at(-1) ?? "";
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)];
  return parts.reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

function quote(arg: string): string {
  return `'${arg.replaceAll("'", "'\\''")}'`;
}

async function measure(parallel: boolean, paths: string[]): Promise<Measure> {
  const args = ["test", ...(parallel ? ["--parallel"] : []), ...TASK_FLAGS, ...paths];
  const command = `${quote(Deno.execPath())} ${args.map(quote).join(" ")}`;
  const started = performance.now();
  const output = await new Deno.Command("sh", {
    args: ["-c", `${command} 2>&1; times >&2`],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wallS = (performance.now() - started) / 1000;
  const log = new TextDecoder().decode(output.stdout);
  const summary = log.split("\n").filter((l) => /^(ok|FAILED) \| \d+ passed/.test(l)).at(-1) ??
    "(no summary)";
  return {
    wallS,
    cpuS: childrenCpuS(new TextDecoder().decode(output.stderr)),
    load: Deno.loadavg()[0],
    summary,
  };
}

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "1" } },
  allowPositionals: true,
});
const rounds = Math.max(1, Number(values.rounds) || 1);
const paths = positionals.length > 0 ? positionals : ["tests/"];
console.log(
  `deno test of ${paths.join(" ")}, ${rounds} round(s), ${navigator.hardwareConcurrency} cores`,
);
const show = (name: string, m: Measure) =>
  console.log(
    `${name.padEnd(12)} wall ${m.wallS.toFixed(1).padStart(7)} s  CPU ${
      m.cpuS.toFixed(1).padStart(7)
    } s  load ${m.load.toFixed(2)}  ${m.summary}`,
  );
for (let round = 1; round <= rounds; round++) {
  const serial = await measure(false, paths);
  show("one at once", serial);
  const parallel = await measure(true, paths);
  show("--parallel", parallel);
  console.log(
    `round ${round}: --parallel / one at once: wall ${
      (parallel.wallS / serial.wallS).toFixed(2)
    }×, CPU ${(parallel.cpuS / serial.cpuS).toFixed(2)}×`,
  );
}
