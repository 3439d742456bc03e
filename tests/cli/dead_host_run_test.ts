import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { runCli } from "../support/cli.ts";
import { unusedPort } from "../support/fake_openai_server.ts";
import { endpointConfig } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";

/** A TCP server on 127.0.0.1 that accepts each connection and closes it at once, counting them. */
function startClosingServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        accepted++;
        conn.close();
      }
    } catch {
      // The listener was closed.
    }
  })();
  return {
    baseUrl: `http://127.0.0.1:${listener.addr.port}/v1`,
    get accepted() {
      return accepted;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
    },
  };
}

Deno.test("a host with nothing listening: calls stop after model.max_connection_failures, the rest are errors saying why, and the dead system is named first", async () => {
  const port = unusedPort();
  await using t = await tempTree({
    "c.yaml": endpointConfig(`http://127.0.0.1:${port}/v1`).replace(
      "max_retries: 0,",
      "max_retries: 0, max_connection_failures: 3,",
    ),
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--cache", "off", "--out", out, "--quiet"]);
  assert.equal(result.code, 1, result.stderr);
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 15);
  // With one question at a time: three calls that could not connect, then none at all.
  lines.forEach((line, i) => {
    assert.equal(line.error?.kind, "model");
    if (i < 3) {
      assert.match(line.error!.message, /could not be reached: connection refused/);
    } else {
      assert.equal(
        line.error!.message.replace(/\(the last: .*\)\. Start/, "(the last: …). Start"),
        `Not calling the model API at http://127.0.0.1:${port}: the run stopped calling this host after 3 model calls in a row got no response (the last: …). Start the server, or check model.base_url; model.max_connection_failures (now 3) sets how many such failures stop the calls.`,
      );
      assert.match(line.error!.message, /\(the last: Model API at .* connection refused\./);
      assert.equal(line.failure_label, "model_error");
    }
  });
  // The first thing printed names the dead system and its first error.
  assert.equal(
    result.stdout.split("\n")[0],
    `failed: closed_book: every question errored (15 of 15), so its figures mean nothing; the first error: Model API at http://127.0.0.1:${port}/v1 could not be reached: connection refused. Check model.base_url and that the server is running.`,
  );
  const md = Deno.readTextFileSync(join(out, "summary.md"));
  assert.match(md, /^\*\*Failed:\*\* closed_book: every question errored \(15 of 15\)/m);
  assert.ok(md.indexOf("**Failed:**") < md.indexOf("| system |"));
  const rec = JSON.parse(Deno.readTextFileSync(join(out, "recommendation.json")));
  assert.equal(rec.failed.length, 1);
  assert.match(rec.failed[0], /connection refused/);
});

Deno.test("a server that closes every connection: the run makes max_connection_failures calls (each with its retries), not one per question", async () => {
  await using server = startClosingServer();
  await using t = await tempTree({
    // The default limit (5); one retry per call.
    "c.yaml": endpointConfig(server.baseUrl).replace("max_retries: 0,", "max_retries: 1,"),
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--cache", "off", "--out", out, "--quiet"]);
  assert.equal(result.code, 1, result.stderr);
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 15);
  const stopped = lines.filter((l) => /^Not calling the model API/.test(l.error?.message ?? ""));
  assert.equal(stopped.length, 10);
  for (const line of lines.slice(0, 5)) {
    assert.deepEqual(line.error?.http_statuses, [0, 0], JSON.stringify(line.error));
  }
  // 5 calls × 2 attempts reached the server; 15 questions × 2 would have without the stop.
  assert.equal(server.accepted, 10);
});

Deno.test("model.max_connection_failures must be a whole number of at least 1", async () => {
  await using t = await tempTree({
    "c.yaml": endpointConfig(`http://127.0.0.1:${unusedPort()}/v1`).replace(
      "max_retries: 0,",
      "max_retries: 0, max_connection_failures: 0,",
    ),
  });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /model\.max_connection_failures/);
});
