import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");

Deno.test("run --mock accepts --cache-dir and creates no cache (mock embedders need none)", async () => {
  await using t = await tempTree();
  const cache = join(t.dir, "cache");
  const result = await runCli([
    "run",
    CONFIG,
    "--mock",
    "--out",
    join(t.dir, "run"),
    "--quiet",
    "--cache-dir",
    cache,
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.stat(cache).then(() => true, () => false), false);
});

Deno.test("run --cache-dir without a value is a usage error", async () => {
  const result = await runCli(["run", CONFIG, "--mock", "--cache-dir"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Option --cache-dir needs a value: --cache-dir DIR/);
});

Deno.test("permissions accepts --cache-dir", async () => {
  const result = await runCli(["permissions", CONFIG, "--mock", "--cache-dir", "/tmp/x"]);
  assert.equal(result.code, 0, result.stderr);
  // The header repeats the command; no flag grants the cache folder.
  const flags = result.stdout.split("\n").filter((l) => l.startsWith("--")).join("\n");
  assert.doesNotMatch(flags, /\/tmp\/x/, "a mock run of this config needs no cache");
});
