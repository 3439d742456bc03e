import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");
const REPORT_FILES = ["recommendation.json", "summary.md", "report.html", "metrics_summary.csv"];

Deno.test("report RUN_DIR rebuilds the same report files from the results file alone", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  assert.equal((await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet"])).code, 0);
  const before = new Map(REPORT_FILES.map((f) => [f, Deno.readTextFileSync(join(out, f))]));
  for (const f of REPORT_FILES) Deno.removeSync(join(out, f));
  // Without run.json and the resolved config: the systems come from the lines.
  Deno.renameSync(join(out, "config.resolved.yaml"), join(t.dir, "config.resolved.yaml"));
  Deno.renameSync(join(out, "run.json"), join(t.dir, "run.json"));
  const result = await runCli(["report", out, "--junit", join(t.dir, "j.xml")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /note: ".*run\.json" cannot be read \(.*\): the run's settings are taken from config\.resolved\.yaml or the results/,
  );
  assert.match(result.stdout, /^best score: agent_search/m);
  assert.equal(
    Deno.readTextFileSync(join(out, "recommendation.json")),
    before.get("recommendation.json"),
  );
  // The summary table differs only in the system type column, unknown without the config.
  assert.equal(
    Deno.readTextFileSync(join(out, "metrics_summary.csv")).replaceAll(",unknown,", ","),
    before.get("metrics_summary.csv")!.replace(/,(closed_book|agent_search),/g, ","),
  );
  // run.json alone is enough: it records every system's type, model and tools.
  Deno.renameSync(join(t.dir, "run.json"), join(out, "run.json"));
  assert.equal((await runCli(["report", out])).code, 0);
  for (const f of REPORT_FILES) {
    assert.equal(Deno.readTextFileSync(join(out, f)), before.get(f), `${f} differs`);
  }
  Deno.renameSync(join(t.dir, "config.resolved.yaml"), join(out, "config.resolved.yaml"));
  assert.equal((await runCli(["report", out])).code, 0);
  for (const f of REPORT_FILES) {
    assert.equal(Deno.readTextFileSync(join(out, f)), before.get(f), `${f} differs`);
  }
  assert.match(Deno.readTextFileSync(join(t.dir, "j.xml")), /tests="30"/);
});

Deno.test("a run's files come from its results file: the file holds every output whole, and report rebuilds the same files", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const run = await runCli([
    "run",
    join(ROOT, "configs/all.yaml"),
    "--mock",
    "--out",
    out,
    "--quiet",
  ]);
  assert.equal(run.code, 0, run.stderr);
  const files = [...REPORT_FILES, "tool_usage.csv"];
  const before = new Map(files.map((f) => [f, Deno.readTextFileSync(join(out, f))]));
  // The run keeps no result: it reads the file back at its end as report does, keeping compact
  // copies (lib/report/compact_line.ts). The file must still hold tool data and long outputs.
  const steps = Deno.readTextFileSync(join(out, "per_question_results.jsonl")).trimEnd().split("\n")
    .flatMap((line) => JSON.parse(line).steps)
    .filter((step: { type: string }) => step.type === "tool");
  assert.ok(steps.some((s: { result: { output: string } }) => s.result.output.length > 1000));
  assert.ok(steps.some((s: { result: { data?: unknown } }) => s.result.data !== undefined));
  await assertReportRebuilds(out, before);
});

Deno.test("a resumed run reads its earlier results back from the file, and the file keeps their lines whole", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const config = join(ROOT, "configs/all.yaml");
  assert.equal((await runCli(["run", config, "--mock", "--out", out, "--quiet"])).code, 0);
  const path = join(out, "per_question_results.jsonl");
  const whole = Deno.readTextFileSync(path);
  const files = [...REPORT_FILES, "tool_usage.csv"];
  const before = new Map(files.map((f) => [f, Deno.readTextFileSync(join(out, f))]));
  // Keep the lines with tool data and drop the rest: the resumed run takes the first as done, runs
  // the others again, and rewrites the file sorted.
  const lines = whole.trimEnd().split("\n");
  const kept = lines.filter((line) => /"data":/.test(line));
  assert.ok(kept.length > 5 && kept.length < lines.length, `${kept.length} of ${lines.length}`);
  Deno.writeTextFileSync(path, kept.join("\n") + "\n");
  const resumed = await runCli(["run", config, "--mock", "--resume", out, "--quiet"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const timing = (text: string) => text.replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0');
  assert.equal(timing(Deno.readTextFileSync(path)), timing(whole));
  for (const f of ["recommendation.json", "tool_usage.csv"]) {
    assert.equal(timing(Deno.readTextFileSync(join(out, f))), timing(before.get(f)!), f);
  }
  // Its report is the one report RUN_DIR makes of the file.
  const resumedFiles = new Map(files.map((f) => [f, Deno.readTextFileSync(join(out, f))]));
  assert.match(resumedFiles.get("report.html")!, /Eiffel/);
  await assertReportRebuilds(out, resumedFiles);
});

/** Removes the files of `before` from the run in `out`; report RUN_DIR must write them as they were. */
async function assertReportRebuilds(out: string, before: Map<string, string>): Promise<void> {
  for (const f of before.keys()) Deno.removeSync(join(out, f));
  assert.equal((await runCli(["report", out])).code, 0);
  for (const [f, text] of before) {
    assert.equal(Deno.readTextFileSync(join(out, f)), text, `${f} differs`);
  }
}

Deno.test("report keeps the later of two lines for one system, question and repeat", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  assert.equal((await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet"])).code, 0);
  const path = join(out, "per_question_results.jsonl");
  const lines = Deno.readTextFileSync(path).trimEnd().split("\n");
  const first = JSON.parse(lines[0]);
  Deno.writeTextFileSync(
    path,
    [...lines, JSON.stringify({ ...first, answer_score: 0, passed: false })].join("\n") + "\n",
  );
  const result = await runCli(["report", out]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /note: 1 line repeats an earlier line's system, question and repeat/);
  assert.match(Deno.readTextFileSync(join(out, "summary.md")), /\| 15 \| /);
});

Deno.test("report names a missing results file and a line that is not JSON", async () => {
  await using t = await tempTree({
    "empty/readme.txt": "x",
    "bad/per_question_results.jsonl": "not json\n",
    "odd/per_question_results.jsonl": '{"a":1}\n',
  });
  const missing = await runCli(["report", t.path("empty")]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /Cannot read ".*empty\/per_question_results\.jsonl": .*Is this a ragbench run directory\?/,
  );
  const bad = await runCli(["report", t.path("bad")]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"[^"]*bad\/per_question_results\.jsonl" line 1 is not valid JSON\./);
  const odd = await runCli(["report", t.path("odd")]);
  assert.equal(odd.code, 2);
  assert.match(
    odd.stderr,
    /line 1 is not a ragbench result line \(system: Invalid input: expected string, received undefined\)\./,
  );
});
