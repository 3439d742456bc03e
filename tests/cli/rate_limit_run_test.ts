import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { ModelStep, QuestionResult } from "../../lib/types.ts";
import { runCli } from "../support/cli.ts";
import {
  chatCompletion,
  errorBody,
  type FakeReply,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../support/fake_openai_server.ts";
import { endpointConfig } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";

function asksAbout(request: RecordedRequest, word: string): boolean {
  return JSON.stringify(request.body).includes(word);
}

Deno.test("a throttled run records retries per step and per system; a question failing every retry errors and the run goes on", async () => {
  // The Eiffel question always gets 503; every other question gets one 429 first.
  const seen = new Set<string>();
  await using server = startFakeOpenAIServer((request): FakeReply => {
    if (asksAbout(request, "Eiffel")) {
      return {
        status: 503,
        json: errorBody("Overloaded.", "server_error"),
        headers: { "retry-after-ms": "5" },
      };
    }
    const key = JSON.stringify(request.body);
    if (!seen.has(key)) {
      seen.add(key);
      return {
        status: 429,
        json: errorBody("Slow down.", "rate_limit"),
        headers: { "retry-after": "0" },
      };
    }
    return { json: chatCompletion({ content: "It is 330." }) };
  });
  await using t = await tempTree({
    "c.yaml": endpointConfig(server.baseUrl).replace("max_retries: 0", "max_retries: 2"),
  });
  const out = join(t.dir, "run");
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--out",
    out,
    "--quiet",
    "--limit",
    "3",
  ]);
  assert.equal(result.code, 0, result.stderr);

  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  assert.equal(lines.length, 3);
  const byId = new Map(lines.map((l) => [l.question_id, l]));
  const failed = byId.get("sh02")!;
  assert.equal(failed.error?.kind, "model");
  assert.match(failed.error!.message, /failed \(HTTP 503: Overloaded\.\) \(after 2 retries\)/);
  assert.deepEqual(
    { ...failed.error, message: "" },
    { kind: "model", message: "", retries: 2, http_statuses: [503, 503, 503], backoff_ms: 10 },
  );
  for (const id of ["sh01", "sh03"]) {
    const line = byId.get(id)!;
    assert.equal(line.error, null);
    const step = line.steps[0] as ModelStep;
    assert.deepEqual(
      [step.retries, step.http_statuses, step.backoff_ms],
      [1, [429], 0],
    );
  }

  const [row] = parse(Deno.readTextFileSync(join(out, "metrics_summary.csv")), {
    columns: true,
  }) as Record<string, string>[];
  assert.deepEqual(
    [row.errors, row.retries, row.http_429, row.http_5xx, row.http_other, row.http_no_response],
    ["1", "4", "2", "3", "0", "0"],
  );
  assert.equal(row.backoff_s, "0.01");
  const latencies = lines.map((l) => l.latency_ms - (l.error?.backoff_ms ?? 0)).sort((a, b) =>
    a - b
  );
  // The CSV rounds numbers; the middle of three lines is the median.
  assert.ok(
    Math.abs(Number(row.p50_latency_ex_backoff_ms) - latencies[1]) < 0.01,
    row.p50_latency_ex_backoff_ms,
  );
});

Deno.test("--mock runs have zero rate-limit columns and no retry fields on their steps", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const config = new URL("../../configs/rag.yaml", import.meta.url).pathname;
  const result = await runCli(["run", config, "--mock", "--out", out, "--quiet", "--limit", "2"]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  for (const line of lines) {
    for (const step of line.steps) assert.equal("retries" in step, false);
  }
  const rows = parse(Deno.readTextFileSync(join(out, "metrics_summary.csv")), {
    columns: true,
  }) as Record<string, string>[];
  for (const row of rows) {
    assert.deepEqual(
      [row.retries, row.http_429, row.http_5xx, row.backoff_s],
      ["0", "0", "0", "0"],
    );
    assert.equal(row.p50_latency_ex_backoff_ms, row.p50_latency_ms);
  }
});
