import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/all.yaml");
const TEXT_FILES = [
  "per_question_results.jsonl",
  "metrics_summary.csv",
  "tool_usage.csv",
  "recommendation.json",
  "summary.md",
  "report.html",
  "config.resolved.yaml",
];

/** Every file of a run folder (relative path → text), `trec/` included. */
function folderFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const f of TEXT_FILES) files.set(f, Deno.readTextFileSync(join(dir, f)));
  for (const entry of Deno.readDirSync(join(dir, "trec"))) {
    files.set(`trec/${entry.name}`, Deno.readTextFileSync(join(dir, "trec", entry.name)));
  }
  return files;
}

/**
 * The folder's files with timing taken out: every `latency_ms` of the results file is set to 0
 * and the summaries, statistics and report are made again from it (`ragbench report`), so every
 * figure derived from a latency is made from the same zeros. The folder's own path is replaced.
 */
async function withoutTiming(dir: string): Promise<Map<string, string>> {
  const results = join(dir, "per_question_results.jsonl");
  Deno.writeTextFileSync(
    results,
    Deno.readTextFileSync(results).replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0'),
  );
  const report = await runCli(["report", dir]);
  assert.equal(report.code, 0, report.stderr);
  const files = folderFiles(dir);
  for (const [name, text] of files) files.set(name, text.replaceAll(dir, "RUN_DIR"));
  return files;
}

/** summary.md and report.html without their "Building the indexes" section. */
function withoutIndexing(files: Map<string, string>): Map<string, string> {
  const out = new Map(files);
  out.set(
    "summary.md",
    files.get("summary.md")!.replace(/\n## Building the indexes\n[\s\S]*?(?=\n## |$)/, ""),
  );
  out.set(
    "report.html",
    files.get("report.html")!.replace(/<section id="indexing">[\s\S]*?<\/section>/, ""),
  );
  return out;
}

Deno.test("merged shards (n = 1, 3, 7) write the unsharded run's folder, apart from timing", async () => {
  await using t = await tempTree();
  const whole = join(t.dir, "whole");
  const run = await runCli(["run", CONFIG, "--mock", "--quiet", "--out", whole]);
  assert.equal(run.code, 0, run.stderr);
  const wholeManifest = JSON.parse(Deno.readTextFileSync(join(whole, "run.json")));
  const expected = withoutIndexing(await withoutTiming(whole));
  const lines = expected.get("per_question_results.jsonl")!.trimEnd().split("\n").length;
  assert.equal(lines, 9 * 21);

  for (const n of [1, 3, 7]) {
    const shards: string[] = [];
    let jobs = 0;
    for (let i = 1; i <= n; i++) {
      const dir = join(t.dir, `n${n}`, `shard${i}`);
      const shard = await runCli([
        "run",
        CONFIG,
        "--mock",
        "--shard",
        `${i}/${n}`,
        "--out",
        dir,
      ]);
      assert.equal(shard.code, 0, shard.stderr);
      const block = JSON.parse(Deno.readTextFileSync(join(dir, "run.json"))).shard;
      assert.equal(block.index, i);
      assert.equal(block.count, n);
      assert.match(
        shard.stderr,
        new RegExp(`shard ${i}/${n}: ${block.jobs} jobs? of the run's ${lines}`),
      );
      jobs += block.jobs;
      shards.push(dir);
    }
    assert.equal(jobs, lines, `the ${n} shards hold every job once`);
    const out = join(t.dir, `merged${n}`);
    // Given in any order.
    const merged = await runCli(["merge", out, ...shards.toReversed()]);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(
      merged.stderr,
      new RegExp(`merged ${n} shards? of ${n} into .*\\(${lines} result lines\\)`),
    );
    assert.match(merged.stdout, /^best score: /m);

    const got = await withoutTiming(out);
    for (const [name, text] of withoutIndexing(got)) {
      assert.equal(text, expected.get(name), `${name}, ${n} shards`);
    }
    // The one deliberate difference: each shard built its own index and says what that cost.
    const manifest = JSON.parse(Deno.readTextFileSync(join(out, "run.json")));
    assert.equal(manifest.sessions.length, n);
    for (const session of manifest.sessions) {
      assert.deepEqual(session.indexing, wholeManifest.sessions[0].indexing);
    }
    assert.equal(
      (got.get("summary.md")!.match(/\| vector_hashing \| hashing:v1:384 \| 31 \|/g) ?? []).length,
      n,
    );
    // The merged run is of the whole run: its identity is the unsharded run's, with no shard.
    assert.equal(manifest.shard, undefined);
    for (const key of ["config_sha256", "inputs", "systems", "scorer", "model", "selection"]) {
      assert.deepEqual(manifest[key], wholeManifest[key], key);
    }
    assert.deepEqual(
      manifest.merged_from.map((m: { shard: string }) => m.shard),
      shards.map((_, i) => `${i + 1}/${n}`),
    );
    assert.equal(manifest.partial, undefined);
  }
});
