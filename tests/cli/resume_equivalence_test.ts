import assert from "node:assert/strict";
import { join } from "node:path";
import { execCli, spawnCli } from "../support/cli.ts";
import { slowEndpointRun, waitForLines } from "../support/slow_run.ts";

const RESULTS = "per_question_results.jsonl";

/** The results file with every timing field zeroed. */
function withoutTiming(path: string): string {
  return Deno.readTextFileSync(path).replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0');
}

/**
 * A summary CSV with its timing columns (latencies, backoff seconds) blanked: every other column
 * must match exactly. (Blanking every decimal number instead let a latency that came out whole,
 * such as 44, fail the comparison.)
 */
function withoutTimingColumns(text: string): string {
  const [header, ...rows] = text.trimEnd().split("\n");
  const columns = header.split(",");
  const timing = new Set(
    columns.flatMap((name, i) => /latency|backoff/.test(name) ? [i] : []),
  );
  assert.ok(timing.size > 0, `no timing column in ${header}`);
  return [
    header,
    ...rows.map((row) => row.split(",").map((v, i) => timing.has(i) ? "" : v).join(",")),
  ]
    .join("\n");
}

Deno.test("a run killed with SIGKILL and resumed gives the same results as an uninterrupted run", async () => {
  await using run = await slowEndpointRun(40);
  const { t, out, permissions } = run;
  const whole = join(t.dir, "whole");
  const clean = await execCli(permissions, [
    "run",
    t.path("c.yaml"),
    "--out",
    whole,
    "--quiet",
    "--cache",
    "off",
  ]);
  assert.equal(clean.code, 0, clean.stderr);

  const child = spawnCli(permissions, [
    "run",
    t.path("c.yaml"),
    "--out",
    out,
    "--quiet",
    "--cache",
    "off",
  ]);
  await waitForLines(join(out, RESULTS), 3);
  child.kill("SIGKILL");
  await child.output();
  const partial = Deno.readTextFileSync(join(out, RESULTS)).trimEnd().split("\n").length;
  assert.ok(partial >= 3 && partial < 15, `${partial} lines before the kill`);
  Deno.removeSync(join(out, "run.lock"));
  const resumed = await execCli(permissions, [
    "run",
    t.path("c.yaml"),
    "--resume",
    out,
    "--quiet",
    "--cache",
    "off",
  ]);
  assert.equal(resumed.code, 0, resumed.stderr);

  assert.equal(withoutTiming(join(out, RESULTS)), withoutTiming(join(whole, RESULTS)));
  for (const file of ["metrics_summary.csv", "tool_usage.csv"]) {
    assert.equal(
      withoutTimingColumns(Deno.readTextFileSync(join(out, file))),
      withoutTimingColumns(Deno.readTextFileSync(join(whole, file))),
      file,
    );
  }
  // The score columns (not timing) match exactly.
  const scores = (dir: string) =>
    Deno.readTextFileSync(join(dir, "metrics_summary.csv")).split("\n").map((l) =>
      l.split(",").slice(0, 5).join(",")
    );
  assert.deepEqual(scores(out), scores(whole));
});
