import assert from "node:assert/strict";
import { join } from "node:path";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";
import { CRANFIELD } from "../support/shared_data.ts";

/** A retrieval_only config over Cranfield; `bm25` replaces the retriever's BM25 settings. */
function config(name: string, bm25 = ""): string {
  return `name: ${name}
corpus: {beir: ${CRANFIELD}}
questions: {beir: ${CRANFIELD}, split: test}
evaluation: {concurrency: 2, retrieval_k: [10, 100]}
retrievers:
  bm25: {kind: bm25, top_k: 100${bm25}}
systems:
  - {type: retrieval_only, name: bm25, retriever: bm25}
`;
}

const FILES = [
  "metrics_summary.csv",
  "tool_usage.csv",
  "recommendation.json",
  "summary.md",
  "report.html",
];

async function run(path: string, out: string, extra: string[] = []) {
  const result = await runCli(["run", path, "--mock", "--out", out, ...extra]);
  assert.equal(result.code, 0, result.stderr);
  return result;
}

Deno.test("report RUN_DIR writes a BEIR run's files byte for byte as run wrote them (retrieval_k [10, 100])", async () => {
  await using t = await tempTree({ "a.yaml": config("cranfield") });
  const out = join(t.dir, "run");
  const first = await run(t.path("a.yaml"), out, []);
  const before = new Map(FILES.map((f) => [f, Deno.readTextFileSync(join(out, f))]));
  // The run's own cut-offs, not the defaults: @100 columns are there.
  assert.match(before.get("metrics_summary.csv")!.split("\n")[0], /,ndcg@10,ndcg@100,hit_rate@10,/);
  // Named with a trailing slash, as a shell completes it: the same run, the same files.
  const report = await runCli(["report", `${out}/`]);
  assert.equal(report.code, 0, report.stderr);
  for (const f of FILES) {
    assert.equal(Deno.readTextFileSync(join(out, f)), before.get(f), `${f} differs`);
  }
  // What report prints is what run printed (the table at the run's cut-offs, the recommendation).
  assert.equal(report.stdout, first.stdout);
});

Deno.test("a retrieval_only system shows no model and no model-call estimate; the recommendation ranks nDCG@10", async () => {
  await using t = await tempTree({ "a.yaml": config("cranfield") });
  const out = join(t.dir, "run");
  const result = await run(t.path("a.yaml"), out);
  assert.match(result.stderr, /^ {2}bm25: no model call$/m);
  assert.doesNotMatch(result.stderr, /bm25 \(mock:/);
  assert.match(result.stderr, /1 system × 225 questions × 1 repeat, no model, writing /);
  const table = result.stdout.split("\n");
  assert.match(table[0], / model$/);
  assert.match(table[2], /^bm25 .* -$/);
  assert.match(result.stdout, /^best nDCG@10: bm25 \(nDCG@10 0\.3\d\d \[/m);
  const row = Deno.readTextFileSync(join(out, "metrics_summary.csv")).split("\n")[1];
  assert.match(row, /^bm25,retrieval_only,,225,/);
  const md = Deno.readTextFileSync(join(out, "summary.md"));
  assert.match(md, /^\| system \| model \| questions \| nDCG@10 \[95 % CI\] \| recall@100 \|/m);
  assert.match(md, /^\| bm25 \| - \| 225 \| 0\.3\d\d \[0\.\d{3}, 0\.\d{3}\] \| 0\.7\d\d \|/m);
  const rec = JSON.parse(Deno.readTextFileSync(join(out, "recommendation.json")));
  assert.equal(rec.metric, "ndcg@10");
  assert.deepEqual(Object.keys(rec.best.retrieval), ["ndcg@10", "recall@100"]);
  const line = JSON.parse(
    Deno.readTextFileSync(join(out, "per_question_results.jsonl")).split("\n")[0],
  );
  assert.equal(line.model, null);
  assert.equal(line.passed, null);
  assert.equal(line.answer_score, null);
});

Deno.test("--resume continues a cut BEIR run (results whose passed and answer_score are null) into the uninterrupted one", async () => {
  await using t = await tempTree({ "a.yaml": config("cranfield") });
  const whole = join(t.dir, "whole");
  await run(t.path("a.yaml"), whole, []);
  const cut = join(t.dir, "cut");
  await run(t.path("a.yaml"), cut, []);
  const path = join(cut, "per_question_results.jsonl");
  const text = Deno.readTextFileSync(path);
  // Keep 100 whole lines and half of the next: as a run killed while writing leaves it.
  const lines = text.split("\n");
  Deno.writeTextFileSync(
    path,
    lines.slice(0, 100).join("\n") + "\n" + lines[100].slice(0, lines[100].length >> 1),
  );
  const resumed = await runCli(["run", t.path("a.yaml"), "--mock", "--resume", cut]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const timing = (s: string) => s.replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0');
  assert.equal(
    timing(Deno.readTextFileSync(path)),
    timing(Deno.readTextFileSync(join(whole, "per_question_results.jsonl"))),
  );
});

Deno.test("compare gates retrieval-only runs on nDCG@10: a worse BM25 setting fails, the same run passes", async () => {
  await using t = await tempTree({
    "a.yaml": config("cranfield"),
    "b.yaml": config("cranfield", ", bm25: {k1: 0.2, b: 0.1}"),
  });
  const a = join(t.dir, "a");
  const b = join(t.dir, "b");
  const a2 = join(t.dir, "a2");
  await run(t.path("a.yaml"), a, []);
  await run(t.path("b.yaml"), b, []);
  await run(t.path("a.yaml"), a2, []);
  const worse = await runCli(["compare", a, b, "--fail-on-regression", "0.01"]);
  assert.equal(worse.code, 1, worse.stderr);
  assert.match(
    worse.stdout,
    /^bm25\s+nDCG@10\s+225\s+0\.3\d\d\s+0\.3\d\d\s+-0\.0\d\d\s+\[-0\.\d+, -0\.\d+\]\s+< 0\.001\s+B lower /m,
  );
  assert.match(
    worse.stderr,
    /^regression: bm25 nDCG@10 -0\.0\d\d \[-0\.\d+, -0\.\d+\] is below -0\.01 with its interval below zero$/m,
  );
  // Another metric, by name; one the runs did not compute is refused, naming those they did.
  const recall = await runCli([
    "compare",
    a,
    b,
    "--fail-on-regression",
    "0.01",
    "--retrieval-metric",
    "recall@100",
  ]);
  assert.equal(recall.code, 1, recall.stderr);
  assert.match(recall.stdout, /^bm25\s+recall@100\s+225 /m);
  const missing = await runCli(["compare", a, b, "--retrieval-metric", "ndcg@5"]);
  assert.equal(missing.code, 2);
  assert.match(
    missing.stderr,
    /has no ndcg@5 for its systems without answers .* it has .*ndcg@10, ndcg@100/,
  );
  const bad = await runCli(["compare", a, b, "--retrieval-metric", "__proto__"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--retrieval-metric must name a per-question retrieval metric/);
  const same = await runCli(["compare", a, a2, "--fail-on-regression", "0.01"]);
  assert.equal(same.code, 0, same.stderr);
  assert.match(same.stdout, /^bm25\s+nDCG@10\s+225 .* no change /m);
  assert.match(same.stderr, /no regression beyond 0\.01/);
});

Deno.test("compare warns when one run is --mock and the other live, and when a system's model changed", async () => {
  await using t = await tempTree({ "a.yaml": config("cranfield") });
  const a = join(t.dir, "a");
  const b = join(t.dir, "b");
  await run(t.path("a.yaml"), a, ["--limit", "8"]);
  await run(t.path("a.yaml"), b, ["--limit", "8"]);
  const manifest = JSON.parse(Deno.readTextFileSync(join(b, "run.json")));
  manifest.mock = false;
  manifest.systems[0].model = "openai:gpt-4o";
  Deno.writeTextFileSync(join(b, "run.json"), JSON.stringify(manifest));
  const result = await runCli(["compare", a, b]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /warning: ".*a" is a --mock run and ".*b" is live: scripted answers against a real model/,
  );
  assert.match(
    result.stderr,
    /warning: bm25: its model differs between the runs \(none → openai:gpt-4o\)/,
  );
});

Deno.test("compare --fail-on-regression with nothing to compare is a usage error, not a pass", async () => {
  await using t = await tempTree({ "a.yaml": config("cranfield") });
  const a = join(t.dir, "a");
  const b = join(t.dir, "b");
  await run(t.path("a.yaml"), a, ["--limit", "5"]);
  await run(t.path("a.yaml"), b, ["--limit", "5"]);
  // Lines whose questions have no judged documents: no nDCG@10 in either run.
  for (const dir of [a, b]) {
    const path = join(dir, "per_question_results.jsonl");
    const lines = Deno.readTextFileSync(path).trimEnd().split("\n").map((l) => JSON.parse(l));
    const bare = lines.map((l) => ({ ...l, retrieval: { ...l.retrieval, metrics: null } }));
    Deno.writeTextFileSync(path, bare.map((l) => JSON.stringify(l) + "\n").join(""));
  }
  const result = await runCli(["compare", a, b, "--fail-on-regression", "0.05"]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /note: bm25 is not compared: no question has its nDCG@10 in both runs/,
  );
  assert.match(
    result.stderr,
    /Nothing to gate on: no system of .* has an answer score or a ndcg@10/,
  );
});

Deno.test("a live run of retrieval_only systems needs no model: no API key, no model host, no network", async () => {
  await using t = await tempTree({ "a.yaml": config("cranfield") });
  const flags = await runCli(["permissions", t.path("a.yaml")]);
  assert.equal(flags.code, 0, flags.stderr);
  assert.doesNotMatch(flags.stdout, /OPENAI_API_KEY|api\.openai\.com|--allow-net/);
  const validate = await runCli(["validate", t.path("a.yaml")]);
  assert.match(validate.stdout, /^ {2}models: {4}none \(no system calls a model\)$/m);
  // A real (not --mock) run with no --allow-env and no --allow-net at all.
  const out = join(t.dir, "live");
  const run = await execCli(
    [`--allow-read=${ROOT},${t.dir},${CRANFIELD}`, `--allow-write=${t.dir}`],
    ["run", t.path("a.yaml"), "--out", out, "--cache", "off", "--limit", "10"],
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^best nDCG@10: bm25 /m);
});

Deno.test("a live retrieval-only run prints no cache line: it made no model call to count", async () => {
  await using t = await tempTree({ "a.yaml": config("cranfield") });
  const result = await runCli([
    "run",
    t.path("a.yaml"),
    "--out",
    join(t.dir, "run"),
    "--cache-dir",
    t.path("cache"),
    "--limit",
    "3",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /results: /);
  assert.doesNotMatch(result.stderr, /cache: /);
});
