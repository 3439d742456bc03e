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

/** Rewrites run `dir`'s lines of `system` through `change` (given the line and its position). */
function rewrite(
  dir: string,
  system: string,
  change: (line: Record<string, unknown>, i: number) => Record<string, unknown>,
): void {
  const path = join(dir, "per_question_results.jsonl");
  const lines = Deno.readTextFileSync(path).trimEnd().split("\n").map((l) => JSON.parse(l));
  let i = 0;
  const out = lines.map((l) => (l.system === system ? change(l, i++) : l));
  Deno.writeTextFileSync(path, out.map((l) => JSON.stringify(l) + "\n").join(""));
}

/** agent_search fails 9 of its 15 questions in `dir`, and its nDCG@10 halves on 10 of them. */
function degrade(dir: string): void {
  rewrite(dir, "agent_search", (l, i) => {
    const retrieval = l.retrieval as { metrics: Record<string, number> | null };
    return {
      ...l,
      ...(i < 9 ? { answer_score: 0, passed: false } : {}),
      retrieval: {
        ...retrieval,
        metrics: retrieval.metrics && i < 10
          ? { ...retrieval.metrics, "ndcg@10": retrieval.metrics["ndcg@10"] / 2 }
          : retrieval.metrics,
      },
    };
  });
}

Deno.test("compare --format json: per system the change with its interval, retrieval deltas, the smallest drop the gate could catch", async () => {
  await using t = await tempTree();
  const [a, b] = await twoRuns(t.dir);
  degrade(b);
  const result = await runCli([
    "compare",
    a,
    b,
    "--format",
    "json",
    "--fail-on-regression",
    "0.05",
  ]);
  // The gate's exit status is the same in every format.
  assert.equal(result.code, 1, result.stderr);
  const doc = JSON.parse(result.stdout);
  assert.equal(doc.format, "ragbench-compare/1");
  assert.deepEqual(doc.gate, { threshold: 0.05, passed: false, regressions: ["agent_search"] });
  const agent = doc.systems.find((s: { system: string }) => s.system === "agent_search");
  assert.equal(agent.metric, "answer_score");
  assert.equal(agent.shared, 15);
  assert.equal(agent.verdict, "lower");
  assert.equal(agent.regression, true);
  assert.ok(agent.change.high < 0 && agent.p_value < 0.05, JSON.stringify(agent));
  assert.match(agent.sentence, /^agent_search in B trails agent_search in A by 0\.[0-9]{3} \[/);
  // The smallest detectable difference is the interval's larger half-width; the gate catches a
  // drop beyond both it and the threshold.
  const { mean, low, high } = agent.change;
  assert.ok(Math.abs(agent.min_detectable_difference - Math.max(mean - low, high - mean)) < 1e-12);
  assert.equal(
    agent.smallest_detectable_regression,
    Math.max(0.05, agent.min_detectable_difference),
  );
  const ndcg = agent.retrieval.find((r: { metric: string }) => r.metric === "ndcg@10");
  assert.ok(ndcg.change.mean < 0 && ndcg.b < ndcg.a, JSON.stringify(ndcg));
  assert.match(ndcg.sentence, /^nDCG@10: agent_search in B /);
  assert.ok(agent.retrieval.some((r: { metric: string }) => r.metric === "recall@100"));
  // closed_book retrieves nothing: no retrieval to compare; unchanged: nothing detectable.
  const closed = doc.systems.find((s: { system: string }) => s.system === "closed_book");
  assert.deepEqual(closed.retrieval, []);
  assert.equal(closed.verdict, "same");
  assert.equal(closed.smallest_detectable_regression, null);
});

Deno.test("compare --format md: a pull-request comment with the gate, the changes and the retrieval deltas", async () => {
  await using t = await tempTree();
  const [a, b] = await twoRuns(t.dir);
  degrade(b);
  const gated = await runCli(["compare", a, b, "--format", "md", "--fail-on-regression", "0.05"]);
  assert.equal(gated.code, 1, gated.stderr);
  const md = gated.stdout;
  assert.match(md, /^### ragbench compare: rag\n/);
  assert.match(
    md,
    /\*\*Gate failed:\*\* agent_search dropped by more than 0\.05 with the 95 % interval below zero\./,
  );
  assert.match(
    md,
    /\| \*\*agent_search\*\* \(regression\) \| score \| 1\.000 \| 0\.400 \| -0\.600 \[-0\.[0-9]{3}, -0\.[0-9]{3}\] \| [<0-9. ]+ \| B lower \| 0\.[0-9]{3} \| /,
  );
  assert.match(
    md,
    /\| closed_book \| score \| [0-9.]+ \| [0-9.]+ \| 0\.000 \[0\.000, 0\.000\] \| 1\.000 \| no change \| n\/a \(0 of 15 differ\) \|/,
  );
  assert.match(
    md,
    /\*\*Retrieval\*\*\n\n\| system \| nDCG@10 A → B \| change \[95 % CI\] \| recall@100 A → B \| change \[95 % CI\] \|/,
  );
  assert.match(
    md,
    /\| agent_search \| [0-9.]+ → [0-9.]+ \| -0\.[0-9]{3} \[-0\.[0-9]{3}, -0\.[0-9]{3}\] B lower \|/,
  );
  assert.match(md, /- agent_search in B trails agent_search in A by 0\.600 \[/);
  assert.match(
    md,
    /Smallest drop the gate could catch: the larger of --fail-on-regression \(0\.05\) and the minimum detectable difference/,
  );
  // Without a gate: no gate line's verdict, the column is the smallest detectable drop, exit 0.
  const plain = await runCli(["compare", a, b, "--format", "md"]);
  assert.equal(plain.code, 0);
  assert.match(plain.stdout, /^No gate: `--fail-on-regression X` fails on a drop/m);
  assert.match(plain.stdout, /\| smallest detectable drop \|/);
});

Deno.test("compare: an unknown --format is a usage error", async () => {
  const result = await runCli(["compare", "x", "y", "--format", "html"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--format must be text, md or json \(got "html"\)\./);
});
