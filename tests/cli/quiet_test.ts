import assert from "node:assert/strict";
import { ROOT, runCli } from "../support/cli.ts";
import { unusedPort } from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

/** One system over the rag arena, with `model` (default: the scripted mock's config). */
function config(model = "{name: gpt-4o-mini}"): string {
  return `name: one
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
mock_script: ${ROOT}arenas/rag/mock.yaml
model: ${model}
systems: [{type: closed_book, name: alone}]
`;
}

Deno.test("counts say 1 system, 1 question, 1 repeat, 1 run: the noun follows the number everywhere", async () => {
  await using t = await tempTree({ "c.yaml": config() });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--out",
    t.path("r"),
    "--limit",
    "1",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /^plan: 1 system × 1 question × 1 repeat = 1 run$/m);
  assert.match(result.stderr, /: 1 system × 1 question × 1 repeat, model /);
  assert.match(result.stderr, /^alone done: 1 question · /m);
  assert.doesNotMatch(result.stderr + result.stdout, /\b1 (systems|questions|repeats|runs)\b/);
  const validated = await runCli(["validate", t.path("c.yaml")]);
  assert.doesNotMatch(validated.stdout, /\b1 (documents|tables)\b/);
  const report = await runCli(["report", t.path("r")]);
  assert.match(report.stderr, /\(1 result line\)$/m);
});

Deno.test("--quiet prints nothing for a run that went well, the table included", async () => {
  await using t = await tempTree({ "c.yaml": config() });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--mock",
    "--out",
    t.path("r"),
    "--limit",
    "2",
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "");
  assert.equal(result.stderr, "");
  assert.ok(Deno.statSync(t.path("r/metrics_summary.csv")).isFile);
});

Deno.test("--quiet prints the errors: a system that errored on every question", async () => {
  const base = `http://127.0.0.1:${unusedPort()}/v1`;
  await using t = await tempTree({
    "c.yaml": config(
      `{name: m, base_url: "${base}", api_key_env: null, max_retries: 0, timeout_s: 5}`,
    ),
  });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--out",
    t.path("r"),
    "--limit",
    "1",
    "--quiet",
  ]);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /^failed: alone: every question errored \(1 of 1\), so its figures mean nothing; the first error: Model API at .* could not be reached: connection refused\./,
  );
  assert.equal(
    result.stderr,
    'failed: every question of alone errored; see "error" in per_question_results.jsonl',
  );
});
