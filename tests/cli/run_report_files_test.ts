import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");

Deno.test("run writes recommendation.json, summary.md, report.html, and JUnit with --junit", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const junit = join(t.dir, "junit.xml");
  const result = await runCli(["run", CONFIG, "--mock", "--out", out, "--junit", junit]);
  assert.equal(result.code, 0, result.stderr);
  const rec = JSON.parse(Deno.readTextFileSync(join(out, "recommendation.json")));
  assert.equal(rec.best.system, "agent_search");
  assert.ok(Array.isArray(rec.warnings));
  assert.match(result.stdout, /^best score: agent_search \(score 1\.000/m);
  assert.match(result.stdout, /95 % CI/);
  const md = Deno.readTextFileSync(join(out, "summary.md"));
  assert.match(md, /^\| agent_search \| mock:gpt-4o-mini \| 15 \| 1\.000 \[1\.000, 1\.000\]/m);
  assert.match(md, /agent_search beats closed_book by/);
  const html = Deno.readTextFileSync(join(out, "report.html"));
  assert.match(html, /<table id="summary-table">/);
  const xml = Deno.readTextFileSync(junit);
  assert.match(xml, /<testsuites name="ragbench" tests="30" /);
  assert.equal(xml.match(/<testcase /g)?.length, 30);
});

Deno.test("progress without a terminal: periodic lines, not one per question; --verbose per question", async () => {
  await using t = await tempTree();
  const plain = await runCli(["run", CONFIG, "--mock", "--out", join(t.dir, "a")]);
  assert.equal(plain.code, 0, plain.stderr);
  const status = plain.stderr.split("\n").filter((l) => /^\[\s*\d+\/30\] \d+ % · pass/.test(l));
  assert.equal(status.length, 10, plain.stderr);
  assert.match(
    status.at(-1)!,
    /^\[30\/30\] 100 % · pass 15\/30 · errors 0 · \$0\.\d{4} simulated · /,
  );
  assert.doesNotMatch(plain.stderr, /: pass, score/);
  const verbose = await runCli(["run", CONFIG, "--mock", "--out", join(t.dir, "b"), "--verbose"]);
  assert.equal(verbose.stderr.split("\n").filter((l) => /: (pass|fail), score/.test(l)).length, 30);
});

Deno.test("usage error: --quiet with --verbose (exit 2)", async () => {
  const result = await runCli(["run", CONFIG, "--mock", "--quiet", "--verbose"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Give either --quiet or --verbose, not both\./);
});
