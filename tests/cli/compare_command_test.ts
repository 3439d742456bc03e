import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");

function manifest(corpusHash = "c1"): string {
  return JSON.stringify({
    inputs: {
      corpus: [{ path: "corpus.json", sha256: corpusHash, files: 1 }],
      questions: [{ sha256: "q1" }],
    },
    scorer: { version: 1, metrics: {} },
  });
}

/** Two mock runs of the rag arena in `dir`/a and `dir`/b with manifests; returns their paths. */
async function twoRuns(dir: string): Promise<[string, string]> {
  const a = join(dir, "a");
  const b = join(dir, "b");
  for (const out of [a, b]) {
    const result = await runCli(["run", CONFIG, "--mock", "--out", out, "--quiet"]);
    assert.equal(result.code, 0, result.stderr);
    Deno.writeTextFileSync(join(out, "run.json"), manifest());
  }
  return [a, b];
}

/** Makes every agent_search line of run `dir` fail. */
function breakAgent(dir: string): void {
  const path = join(dir, "per_question_results.jsonl");
  const lines = Deno.readTextFileSync(path).trimEnd().split("\n").map((l) => JSON.parse(l));
  const broken = lines.map((l) =>
    l.system === "agent_search" ? { ...l, answer_score: 0, passed: false } : l
  );
  Deno.writeTextFileSync(path, broken.map((l) => JSON.stringify(l) + "\n").join(""));
}

Deno.test("compare: identical runs show no change and pass the regression gate", async () => {
  await using t = await tempTree();
  const [a, b] = await twoRuns(t.dir);
  const result = await runCli(["compare", a, b, "--fail-on-regression", "0.05"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /^agent_search\s+score\s+15\s+1\.000\s+1\.000\s+0\.000\s+\[0\.000, 0\.000\]\s+1\.000\s+no change /m,
  );
  assert.match(result.stderr, /no regression beyond 0\.05/);
});

Deno.test("compare --fail-on-regression exits 1 on a drop whose interval is below zero", async () => {
  await using t = await tempTree();
  const [a, b] = await twoRuns(t.dir);
  breakAgent(b);
  const result = await runCli(["compare", a, b, "--fail-on-regression", "0.05"]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /regression: agent_search score -1\.000 \[-1\.000, -1\.000\] is below -0\.05 with its interval below zero/,
  );
  // Without the gate the same comparison exits 0 and shows the drop with its p-value (2 / 2^15).
  const plain = await runCli(["compare", a, b]);
  assert.equal(plain.code, 0);
  assert.match(
    plain.stdout,
    /^agent_search\s+score\s+15\s+1\.000\s+0\.000\s+-1\.000\s+\[-1\.000, -1\.000\]\s+< 0\.001\s+B lower /m,
  );
  // A drop smaller than the threshold does not fail.
  assert.equal((await runCli(["compare", a, b, "--fail-on-regression", "1"])).code, 0);
});

Deno.test("compare refuses runs of different inputs unless --force, and names what differs", async () => {
  await using t = await tempTree();
  const [a, b] = await twoRuns(t.dir);
  Deno.writeTextFileSync(join(b, "run.json"), manifest("other"));
  const refused = await runCli(["compare", a, b]);
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /Cannot compare ".*a" with ".*b": the runs are not of the same benchmark:\n {2}the corpus differs\n/,
  );
  const forced = await runCli(["compare", a, b, "--force"]);
  assert.equal(forced.code, 0);
  assert.match(
    forced.stderr,
    /warning: comparing runs that differ \(--force\):\n {2}the corpus differs/,
  );
  Deno.removeSync(join(a, "run.json"));
  const missing = await runCli(["compare", a, b]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /a has no readable run\.json, so its inputs cannot be checked/);
});

Deno.test("compare: a bad --fail-on-regression value is a usage error", async () => {
  for (const bad of ["", "-0.1", "2", "abc"]) {
    const result = await runCli(["compare", "x", "y", "--fail-on-regression", bad]);
    assert.equal(result.code, 2, bad);
    assert.match(result.stderr, /--fail-on-regression must be a score difference from 0 to 1/);
  }
});
