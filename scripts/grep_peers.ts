// deno-lint-ignore-file no-console
/**
 * The peers and the timing of scripts/bench_grep.ts: ripgrep over a file of
 * the same lines, V8 `RegExp` line by line, and a median-of-runs timer.
 *
 * @module
 */

/** Median MB/s of one measured side and the matching-line count it found. */
export interface Speed {
  mbps: number;
  hits: number;
}

/** One timed run of a side: milliseconds of work and the matching lines it counted. */
export interface Run {
  ms: number;
  hits: number;
}

/** A side of a comparison: one run of its work. */
export type Side = () => Promise<Run>;

/** A ripgrep over a file of the lines, or undefined (with a message) when `rg` is not installed. */
export interface Ripgrep {
  /** One run over `patterns` (summed), ripgrep's start-up (the same command on an empty file) subtracted. */
  side(patterns: string[], regex: boolean): Side;
  dispose(): Promise<void>;
}

/**
 * ripgrep (`rg -j1 -i -c`) over a temporary file holding exactly the lines
 * corpus_grep scans (the first 2,000 characters of each), read from the
 * page cache. Its time is the median wall time of its process minus the
 * median wall time of the same command over an empty file (process
 * start-up), so that only its scanning is compared.
 */
export async function ripgrep(lines: readonly string[]): Promise<Ripgrep | undefined> {
  try {
    await new Deno.Command("rg", { args: ["--version"], stdout: "null", stderr: "null" }).output();
  } catch {
    console.log("ripgrep (rg) is not installed: its rows read n/a (apt-get install -y ripgrep)");
    return undefined;
  }
  const dir = await Deno.makeTempDir({ prefix: "bench_grep_" });
  const file = `${dir}/lines.txt`;
  const empty = `${dir}/empty.txt`;
  await Deno.writeTextFile(file, lines.map((line) => line.slice(0, 2000)).join("\n") + "\n");
  await Deno.writeTextFile(empty, "");
  const run = async (args: string[], path: string): Promise<{ ms: number; count: number }> => {
    const started = performance.now();
    const output = await new Deno.Command("rg", { args: [...args, path], stderr: "null" })
      .output();
    const ms = performance.now() - started;
    const text = new TextDecoder().decode(output.stdout).trim();
    return { ms, count: text === "" ? 0 : Number(text) };
  };
  return {
    side(patterns, regex) {
      const args = (pattern: string) => ["-j1", "-i", "-c", ...(regex ? [] : ["-F"]), pattern];
      return async () => {
        let ms = 0;
        let hits = 0;
        for (const pattern of patterns) {
          const result = await run(args(pattern), file);
          ms += result.ms - (await run(args(pattern), empty)).ms;
          hits += result.count;
        }
        return { ms: Math.max(ms, 0.001), hits };
      };
    },
    async dispose() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Lines of `lines` matching `pattern` (case-insensitive) with V8's RegExp. */
export function v8Count(lines: readonly string[], pattern: string): number {
  const re = new RegExp(pattern, "i");
  let hits = 0;
  for (const line of lines) if (re.test(line)) hits++;
  return hits;
}

/** A side timing `body`, which returns its matching-line count. */
export function timed(body: () => number | Promise<number>): Side {
  return async () => {
    const started = performance.now();
    const hits = await body();
    return { ms: performance.now() - started, hits };
  };
}

/** Two sides measured in alternation: speeds from the median times, and the median of the rounds' ratios. */
export interface Comparison {
  ours: Speed;
  theirs: Speed;
  /** Median over rounds of (their time / our time): above 1 means ours is faster. */
  ratio: number;
}

/**
 * Runs `ours` and `theirs` alternately, `runs` rounds after one warm-up
 * round, so that a change in the machine's load falls on both sides alike
 * (the machines these run on are shared). `mb` is the text each run covers.
 */
export async function alternate(
  runs: number,
  mb: number,
  ours: Side,
  theirs: Side,
): Promise<Comparison> {
  let a = await ours();
  let b = await theirs();
  const times = { ours: [] as number[], theirs: [] as number[], ratios: [] as number[] };
  for (let r = 0; r < runs; r++) {
    a = await ours();
    b = await theirs();
    times.ours.push(a.ms);
    times.theirs.push(b.ms);
    times.ratios.push(b.ms / a.ms);
  }
  return {
    ours: { mbps: mb / (median(times.ours) / 1000), hits: a.hits },
    theirs: { mbps: mb / (median(times.theirs) / 1000), hits: b.hits },
    ratio: median(times.ratios),
  };
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The load averages, for the header of a measurement. */
export function loadAverage(): string {
  return Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
}
