/**
 * `ragbench compare RUN_A RUN_B`: per-system change from run A (the
 * baseline) to run B — the system's metric B − A with the 95 % interval and
 * p-value of the one paired test over the questions both ran, its verdict,
 * cost per question and median latency — and the CI gate: with
 * `--fail-on-regression X` it exits 1 when a system's metric dropped by more
 * than X and the interval lies wholly below zero. Systems with answers are
 * compared on the answer score; systems without (retrieval_only, BEIR data
 * sets) on a retrieval metric, nDCG@10 unless `--retrieval-metric` names
 * another.
 *
 * The two runs must have used the same corpus, questions and scorer (their
 * `run.json` manifests say so); otherwise, or when a manifest is missing,
 * it refuses (exit 2) unless `--force`, which turns the refusal into a
 * warning. It warns when one run was `--mock` and the other live, and when a
 * system's model differs between the runs. A gate with nothing to compare
 * (no system with a value on questions both runs ran) is a usage error, not
 * a pass.
 *
 * `--format md` writes the comparison as a pull-request comment and
 * `--format json` as data (`lib/report/compare_comment.ts`), each with the
 * change of the headline retrieval metrics and the smallest drop the gate
 * could have caught; the gate's exit status is the same in every format.
 * In every format a figure computed on rankings cut below its cut-off (the
 * retriever's `top_k`) is marked as the run's own table marks it, and so is
 * its change (`compare_depth.ts`).
 *
 * @module
 */

import { join } from "../util/paths.ts";
import { UsageError } from "../errors.ts";
import { readRun, type RunContents } from "../report/read_run.ts";
import { formatP, metricLabel, signed, tooFewClause } from "../report/verdict_text.ts";
import { compareJson, compareMarkdown, verdictWords } from "../report/compare_comment.ts";
import { compareDepthNotes, depthMarks } from "../report/compare_depth.ts";
import { retrievalHeadline } from "../report/retrieval_headline.ts";
import { verdictOf } from "../score/significance.ts";
import {
  DEFAULT_RETRIEVAL_METRIC,
  metricDeltas,
  regressions,
  runDelta,
  type SystemDelta,
} from "../score/run_delta.ts";
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
      name: "retrieval-metric",
      value: "NAME",
      description:
        `Compare systems without answers on this retrieval metric (default ${DEFAULT_RETRIEVAL_METRIC}; ` +
        "e.g. map, recall@100, mrr@10).",
    },
    {
      name: "force",
      description: "Compare even when the runs' corpus, questions or scorer differ (warns).",
    },
    {
      name: "format",
      value: "text|md|json",
      description: "text (default): a table; md: a pull-request comment; json: the same as data.",
    },
  ],
  notes: "RUN_A is the baseline: differences are B − A. Exit status: 0 no regression;\n" +
    "1 a regression beyond --fail-on-regression; 2 usage error or runs that cannot be compared\n" +
    "(also a gate with no system to compare).",
};

/** Names of the per-question retrieval metrics a result line can hold. */
const RETRIEVAL_METRIC = /^(?:map|(?:recall|precision|mrr|ndcg|hit_rate)@[1-9][0-9]{0,5})$/;

/** Runs the command; returns the exit code. */
export async function compareCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const [dirA, dirB] = args.positionals;
  const threshold = thresholdOption(args.options.get("fail-on-regression"));
  const format = formatOption(args.options.get("format"));
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
  const warnings = runWarnings(a, b, dirA, dirB);
  for (const warning of warnings) io.progress(`warning: ${warning}`);
  const metric = retrievalMetricOption(args.options.get("retrieval-metric"));
  const delta = runDelta(a.lines, b.lines, { retrievalMetric: metric });
  checkMetricPresent(delta.systems, metric, [a, b], [dirA, dirB]);
  if (format === "text") {
    io.out(deltaTable(delta.systems));
    for (const s of delta.onlyA) io.out(`only in ${dirA}: ${s}`);
    for (const s of delta.onlyB) io.out(`only in ${dirB}: ${s}`);
  } else {
    // The retrieval metrics a run leads with (nDCG at the cut-off nearest 10, recall at the
    // deepest), from the candidate's cut-offs; the one --retrieval-metric names first.
    const headline = retrievalHeadline(b.retrievalK ?? a.retrievalK ?? undefined).columns;
    const metrics = [
      ...new Set([
        ...(args.options.has("retrieval-metric") ? [metric] : []),
        ...headline,
      ]),
    ];
    const retrieving = new Set(
      [...a.lines, ...b.lines].filter((l) => l.retrieval.retrieved).map((l) => l.system),
    );
    const input = {
      baseline: { dir: dirA, name: a.name },
      candidate: { dir: dirB, name: b.name },
      delta,
      // Systems that never retrieve (closed_book) have no retrieval to compare.
      retrieval: metrics.flatMap((m) => metricDeltas(a.lines, b.lines, m))
        .filter((d) => retrieving.has(d.system)),
      threshold: threshold ?? null,
      regressions: threshold === undefined
        ? []
        : regressions(delta, threshold).map((s) => s.system),
      warnings,
    };
    io.out(
      format === "json"
        ? JSON.stringify(compareJson(input), null, 2)
        : compareMarkdown(input).trimEnd(),
    );
  }
  for (const s of delta.systems) {
    if (s.shared === 0) {
      io.progress(
        `note: ${s.system} is not compared: no question has its ${
          metricLabel(s.metric)
        } in both runs`,
      );
    }
  }
  if (threshold === undefined) return 0;
  if (delta.systems.every((s) => s.shared === 0)) {
    throw new UsageError(
      `Nothing to gate on: no system of "${dirA}" and "${dirB}" has an answer score or a ${metric} on questions both runs ran, so --fail-on-regression cannot pass or fail.`,
    );
  }
  const failed = regressions(delta, threshold);
  for (const s of failed) {
    io.progress(
      `regression: ${s.system} ${metricLabel(s.metric)} ${signed(s.score!.diff.mean)} [${
        signed(s.score!.diff.low)
      }, ${signed(s.score!.diff.high)}] is below -${threshold} with its interval below zero`,
    );
  }
  for (const s of delta.systems) {
    if (!s.score || failed.includes(s) || !(s.score.diff.mean < -threshold)) continue;
    const verdict = verdictOf(s.score);
    const why = verdict === "too_few"
      ? tooFewClause(s.score)
      : `its interval [${signed(s.score.diff.low)}, ${signed(s.score.diff.high)}] reaches 0`;
    io.progress(
      `note: ${s.system} ${metricLabel(s.metric)} dropped by ${
        (-s.score.diff.mean).toFixed(3)
      }, but not provably: ${why}`,
    );
  }
  if (failed.length === 0) io.progress(`no regression beyond ${threshold}`);
  return failed.length ? 1 : 0;
}

/**
 * What a reader should know before trusting the comparison: one run under
 * `--mock` and the other live, or a system whose model changed.
 */
function runWarnings(a: RunContents, b: RunContents, dirA: string, dirB: string): string[] {
  const out: string[] = [];
  if (a.manifest && b.manifest && a.manifest.mock !== b.manifest.mock) {
    const [mock, live] = a.manifest.mock ? [dirA, dirB] : [dirB, dirA];
    out.push(
      `"${mock}" is a --mock run and "${live}" is live: scripted answers against a real model, so the differences are not the change under test`,
    );
  }
  const modelsB = new Map(b.systems.map((s) => [s.name, s.model]));
  for (const s of a.systems) {
    const other = modelsB.get(s.name);
    if (other === undefined || other === s.model) continue;
    out.push(
      `${s.name}: its model differs between the runs (${s.model ?? "none"} → ${other ?? "none"})`,
    );
  }
  return out;
}

/**
 * The `--retrieval-metric` value, lower-cased.
 *
 * @throws {UsageError} for a name that no result line can hold.
 */
function retrievalMetricOption(raw: string | undefined): string {
  if (raw === undefined) return DEFAULT_RETRIEVAL_METRIC;
  const name = raw.trim().toLowerCase();
  if (!RETRIEVAL_METRIC.test(name)) {
    throw new UsageError(
      `--retrieval-metric must name a per-question retrieval metric: map, or recall, precision, mrr, ndcg or hit_rate at a cut-off, e.g. ndcg@10 (got "${raw}").`,
    );
  }
  return name;
}

/**
 * Refuses a retrieval metric the runs did not compute (a cut-off outside
 * their `evaluation.retrieval_k`), naming the ones they have.
 *
 * @throws {UsageError} when a system compared on `metric` has lines with
 *   retrieval metrics, none of them `metric`.
 */
function checkMetricPresent(
  systems: readonly SystemDelta[],
  metric: string,
  runs: readonly RunContents[],
  dirs: readonly string[],
): void {
  runs.forEach((run, i) => {
    const names = new Set<string>();
    let has = false;
    for (const line of run.lines) {
      const delta = systems.find((s) => s.system === line.system);
      if (!delta || delta.metric !== metric || !line.retrieval.metrics) continue;
      for (const key of Object.keys(line.retrieval.metrics)) names.add(key);
      if (Object.hasOwn(line.retrieval.metrics, metric)) has = true;
    }
    if (names.size > 0 && !has) {
      throw new UsageError(
        `"${
          dirs[i]
        }" has no ${metric} for its systems without answers (its cut-offs are its evaluation.retrieval_k); it has ${
          [...names].sort().join(", ")
        }. Pass one of them with --retrieval-metric.`,
      );
    }
  });
}

/** The `--format` value. */
function formatOption(raw: string | undefined): "text" | "md" | "json" {
  if (raw === undefined || raw === "text" || raw === "md" || raw === "json") return raw ?? "text";
  throw new UsageError(`--format must be text, md or json (got "${raw}").`);
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
    "metric",
    "shared",
    "A",
    "B",
    "Δ",
    "95 % CI",
    "p",
    "verdict",
    "$/q A → B",
    "p50 ms A → B",
  ];
  const body = systems.map((s) => {
    const mark = depthMarks(s);
    return [
      s.system,
      metricLabel(s.metric),
      String(s.shared),
      fixed(s.scoreA, 3) + mark.a,
      fixed(s.scoreB, 3) + mark.b,
      s.score ? signed(s.score.diff.mean) + mark.change : "-",
      s.score ? `[${signed(s.score.diff.low)}, ${signed(s.score.diff.high)}]` : "-",
      s.score ? formatP(s.score.p_value) : "-",
      verdictWords(s.score),
      `${money(s.costA)} → ${money(s.costB)}`,
      `${fixed(s.p50A, 1)} → ${fixed(s.p50B, 1)}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const left = (i: number) => i <= 1 || i === 8;
  const line = (cells: string[]) =>
    cells.map((c, i) => (left(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
      .trimEnd();
  const notes = compareDepthNotes(systems).map((n) => `* ${n}`);
  return [
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...body.map(line),
    ...(notes.length ? ["", ...notes] : []),
  ].join("\n");
}

function fixed(v: number | null, digits: number): string {
  return v === null ? "-" : v.toFixed(digits);
}

/** Mean cost per question; `?` when unknown (a model with no known price), never $0. */
function money(v: number | null): string {
  return v === null ? "?" : `$${v.toPrecision(3)}`;
}
