/**
 * `ragbench compare RUN_A RUN_B`: per-system change from run A (the
 * baseline) to run B — answer score B − A with a paired 95 % interval and
 * p-value over the questions both ran, cost per question and median
 * latency — and the CI gate: with `--fail-on-regression X` it exits 1 when
 * a system's score dropped by more than X and the interval lies wholly
 * below zero.
 *
 * The two runs must have used the same corpus, questions and scorer (their
 * `run.json` manifests say so); otherwise, or when a manifest is missing,
 * it refuses (exit 2) unless `--force`, which turns the refusal into a
 * warning.
 *
 * @module
 */

import { join } from "../util/paths.ts";
import { UsageError } from "../errors.ts";
import { formatP } from "../report/recommendation.ts";
import { readRun } from "../report/read_run.ts";
import { regressions, runDelta, type SystemDelta } from "../score/run_delta.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";

/** Declaration of `ragbench compare`. */
export const COMPARE_SPEC: CommandSpec = {
  name: "compare",
  summary: "Compare two runs system by system; with --fail-on-regression, gate CI on it.",
  positionals: [{ name: "RUN_A" }, { name: "RUN_B" }],
  options: [
    {
      name: "fail-on-regression",
      value: "X",
      description: "Exit 1 when a system's score dropped by more than X (0..1) with its " +
        "95 % interval below zero.",
    },
    {
      name: "force",
      description: "Compare even when the runs' corpus, questions or scorer differ (warns).",
    },
  ],
  notes: "RUN_A is the baseline: differences are B − A. Exit status: 0 no regression;\n" +
    "1 a regression beyond --fail-on-regression; 2 usage error or runs that cannot be compared.",
};

/** Runs the command; returns the exit code. */
export async function compareCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const [dirA, dirB] = args.positionals;
  const threshold = thresholdOption(args.options.get("fail-on-regression"));
  const differences = await manifestDifferences(dirA, dirB);
  if (differences.length) {
    const text = differences.map((d) => `  ${d}`).join("\n");
    if (!args.options.has("force")) {
      throw new UsageError(
        `Cannot compare "${dirA}" with "${dirB}": the runs are not of the same benchmark:\n${text}\n` +
          "Compare runs of the same corpus, questions and scorer, or pass --force to compare anyway.",
      );
    }
    io.progress(`warning: comparing runs that differ (--force):\n${text}`);
  }
  const [a, b] = await Promise.all([readRun(dirA), readRun(dirB)]);
  const delta = runDelta(a.lines, b.lines);
  io.out(deltaTable(delta.systems));
  for (const s of delta.onlyA) io.out(`only in ${dirA}: ${s}`);
  for (const s of delta.onlyB) io.out(`only in ${dirB}: ${s}`);
  if (threshold === undefined) return 0;
  const failed = regressions(delta, threshold);
  for (const s of failed) {
    io.progress(
      `regression: ${s.system} score ${signed(s.score!.diff.mean)} [${signed(s.score!.diff.low)}, ${
        signed(s.score!.diff.high)
      }] is below -${threshold} with its interval below zero`,
    );
  }
  if (failed.length === 0) io.progress(`no regression beyond ${threshold}`);
  return failed.length ? 1 : 0;
}

function thresholdOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError(
      `--fail-on-regression must be a score difference from 0 to 1, e.g. 0.05 (got "${raw}").`,
    );
  }
  return value;
}

/** What differs between the two runs' corpus, questions and scorer, per their manifests. */
async function manifestDifferences(dirA: string, dirB: string): Promise<string[]> {
  const [a, b] = await Promise.all([readManifest(dirA), readManifest(dirB)]);
  const out: string[] = [];
  for (const [dir, m] of [[dirA, a], [dirB, b]] as const) {
    if (m === null) out.push(`${dir} has no readable run.json, so its inputs cannot be checked`);
  }
  if (a === null || b === null) return out;
  const pick = (m: Record<string, unknown>, path: string[]) =>
    JSON.stringify(path.reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], m) ?? null);
  const hashes = (m: Record<string, unknown>, key: string) => {
    const list = ((m.inputs as Record<string, unknown> | undefined)?.[key] ?? []) as Array<
      { sha256?: unknown }
    >;
    return JSON.stringify(Array.isArray(list) ? list.map((d) => d?.sha256 ?? null) : null);
  };
  if (hashes(a, "corpus") !== hashes(b, "corpus")) out.push("the corpus differs");
  if (hashes(a, "questions") !== hashes(b, "questions")) out.push("the questions differ");
  if (pick(a, ["scorer"]) !== pick(b, ["scorer"])) out.push("the scorer version or metrics differ");
  return out;
}

async function readManifest(dir: string): Promise<Record<string, unknown> | null> {
  try {
    const value = JSON.parse(await Deno.readTextFile(join(dir, "run.json")));
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function deltaTable(systems: readonly SystemDelta[]): string {
  const header = [
    "system",
    "shared",
    "score A",
    "score B",
    "Δ score",
    "95 % CI",
    "p",
    "$/q A → B",
    "p50 ms A → B",
  ];
  const body = systems.map((s) => [
    s.system,
    String(s.shared),
    fixed(s.scoreA, 3),
    fixed(s.scoreB, 3),
    s.score ? signed(s.score.diff.mean) : "-",
    s.score ? `[${signed(s.score.diff.low)}, ${signed(s.score.diff.high)}]` : "-",
    s.score ? formatP(s.score.p_value) : "-",
    `${money(s.costA)} → ${money(s.costB)}`,
    `${fixed(s.p50A, 1)} → ${fixed(s.p50B, 1)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

function fixed(v: number | null, digits: number): string {
  return v === null ? "-" : v.toFixed(digits);
}

/** Mean cost per question; `?` when unknown (a model with no known price), never $0. */
function money(v: number | null): string {
  return v === null ? "?" : `$${v.toPrecision(3)}`;
}

function signed(x: number): string {
  const s = x.toFixed(3);
  return x > 0 ? `+${s}` : s === "-0.000" ? "0.000" : s;
}
