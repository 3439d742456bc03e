/**
 * Indexes built once across processes (issue 23 item 6, issue 24 item 6):
 * two `ragbench run`s of one config started together over Cranfield, with
 * one cache folder, build its BM25 indexes once between them: one builds and
 * saves each index while the other waits for its lock and loads it. Their
 * retrieval metrics are equal, and equal to a run without saved indexes.
 * The two shards of one run (`--shard 1/2`, `2/2`) share them the same way,
 * and merge to the unsharded run's metrics.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { CRANFIELD } from "../support/shared_data.ts";
import { parseIndexCacheMode } from "../../lib/cli/cache_options.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = `name: cranfield_shared
corpus: {beir: ${CRANFIELD}}
questions: {beir: ${CRANFIELD}, split: test}
evaluation: {concurrency: 2, retrieval_k: [10, 100]}
retrievers:
  small: {chunk: {size: 60}, top_k: 100}
systems:
  - {type: retrieval_only, name: bm25}
  - {type: retrieval_only, name: bm25_small, retriever: small}
`;

/** The metric columns of metrics_summary.csv (timing columns left out). */
function metrics(out: string): string[] {
  const [header, ...rows] = Deno.readTextFileSync(join(out, "metrics_summary.csv")).trim()
    .split("\n").map((l) => l.split(","));
  const keep = header.flatMap((name, i) =>
    /ndcg|map|recall|mrr|precision|questions|errors/.test(name) ? [i] : []
  );
  assert.ok(keep.length > 4);
  return rows.map((row) => keep.map((i) => `${header[i]}=${row[i]}`).join(" "));
}

Deno.test("two runs started together build each saved index once: one saves it, the other waits and loads it", async () => {
  await using t = await tempTree({ "config.yaml": CONFIG });
  const cache = t.path("cache");
  const permissions = [
    `--allow-read=${ROOT},${CRANFIELD},${t.dir}`,
    `--allow-write=${t.dir}`,
    `--allow-run=${Deno.execPath()}`,
  ];
  const run = (name: string, more: string[] = []) =>
    execCli(permissions, [
      "run",
      t.path("config.yaml"),
      "--mock",
      "--out",
      t.path(name),
      "--cache-dir",
      cache,
      ...more,
    ]);
  const shared = ["--index-cache", "read-write"];
  const [a, b] = await Promise.all([run("a", shared), run("b", shared)]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const lines = `${a.stderr}\n${b.stderr}`.split("\n");
  const saved = lines.filter((l) => l.endsWith("BM25 index built and saved for later runs"));
  const loaded = lines.filter((l) => l.endsWith("BM25 index loaded from the cache folder"));
  // The progress lines docs/retrievers.md shows are what the runs printed (retriever names aside).
  const page = await Deno.readTextFile(join(ROOT, "docs/retrievers.md"));
  const shown = page.split("<!-- check: run by tests/cli/saved_index_run_test.ts -->")[1]
    .split("```")[1].split("\n").slice(1).filter((l) => l.trim() !== "");
  assert.equal(shown.length, 2);
  for (const line of shown) {
    const said = line.slice(line.indexOf(": ") + 2);
    assert.ok(lines.some((l) => l.endsWith(`: ${said}`)), `no run printed "${said}"`);
  }
  // Each run looks up four indexes: the passages of each retriever and their whole documents
  // (one key: the same documents and BM25 settings, whatever the chunking).
  assert.equal(saved.length + loaded.length, 8, lines.join("\n"));
  const files = [...Deno.readDirSync(join(cache, "indexes-v1"))].filter((e) =>
    e.name.endsWith(".idx")
  );
  assert.equal(files.length, 3);
  // Each key built once between the two runs.
  assert.equal(saved.length, 3, lines.join("\n"));
  // Without saved indexes (the --mock default), the same metrics.
  const plain = await run("plain");
  assert.equal(plain.code, 0, plain.stderr);
  assert.doesNotMatch(plain.stderr, /saved|loaded/);
  assert.deepEqual(metrics(t.path("a")), metrics(t.path("plain")));
  assert.deepEqual(metrics(t.path("b")), metrics(t.path("plain")));
});

Deno.test("--index-cache refuses a value that is not a mode, with the nearest one", async () => {
  const result = await runCli(["run", "configs/all.yaml", "--mock", "--index-cache", "readwrite"]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    '--index-cache "readwrite" is not a mode — did you mean "read-write"? ' +
      "Use one of: off, read, write, read-write.",
  );
});

Deno.test("permissions lists the cache folder for saved indexes, and the printed command keeps --index-cache", async () => {
  const result = await runCli([
    "permissions",
    "configs/all.yaml",
    "--mock",
    "--index-cache",
    "read-write",
    "--cache-dir",
    "/tmp/ragbench-index-cache",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /for: ragbench run configs\/all\.yaml --mock --index-cache read-write --cache-dir/,
  );
  assert.match(
    result.stdout,
    /--allow-write=\/tmp\/ragbench-index-cache +saved indexes \(--index-cache\)/,
  );
  // The --mock default (off) needs no cache folder.
  const plain = await runCli(["permissions", "configs/all.yaml", "--mock"]);
  assert.doesNotMatch(plain.stdout, /index-cache/);
});

Deno.test("--index-cache defaults to read-write, but to off under --mock or --cache off", () => {
  const mode = (value: string | undefined, mock: boolean, cacheOff: boolean) =>
    parseIndexCacheMode(value, { mock, cacheOff });
  assert.equal(mode(undefined, false, false), "read-write");
  assert.equal(mode(undefined, true, false), "off");
  assert.equal(mode(undefined, false, true), "off");
  assert.equal(mode("read", true, true), "read");
});

Deno.test("two shards of one run started together share each saved index, and merge to the unsharded run's metrics", async () => {
  await using t = await tempTree({ "config.yaml": CONFIG });
  const cache = t.path("cache");
  const permissions = [
    `--allow-read=${ROOT},${CRANFIELD},${t.dir}`,
    `--allow-write=${t.dir}`,
    `--allow-run=${Deno.execPath()}`,
  ];
  const shard = (i: number) =>
    execCli(permissions, [
      "run",
      t.path("config.yaml"),
      "--mock",
      "--shard",
      `${i}/2`,
      "--out",
      t.path(`shard${i}`),
      "--index-cache",
      "read-write",
      "--cache-dir",
      cache,
    ]);
  const [one, two] = await Promise.all([shard(1), shard(2)]);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(two.code, 0, two.stderr);
  const lines = `${one.stderr}\n${two.stderr}`.split("\n");
  const saved = lines.filter((l) => l.endsWith("BM25 index built and saved for later runs"));
  const loaded = lines.filter((l) => l.endsWith("BM25 index loaded from the cache folder"));
  assert.equal(saved.length, 3, lines.join("\n"));
  assert.equal(saved.length + loaded.length, 8, lines.join("\n"));
  const merged = await runCli(["merge", t.path("merged"), t.path("shard1"), t.path("shard2")]);
  assert.equal(merged.code, 0, merged.stderr);
  const plain = await runCli([
    "run",
    t.path("config.yaml"),
    "--mock",
    "--quiet",
    "--out",
    t.path("plain"),
  ]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(metrics(t.path("merged")), metrics(t.path("plain")));
});
