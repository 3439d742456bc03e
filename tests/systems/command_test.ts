import assert from "node:assert/strict";
import { TraceRecorder } from "../../lib/trace/trace_recorder.ts";
import type { ModelStep, RetrievalStep } from "../../lib/types.ts";
import { command } from "../../systems/command.ts";
import { SystemFailedError } from "../../systems/system.ts";
import { modelOf, question, toolboxOf } from "../support/fixtures.ts";
import { killAllWith, waitNoneWith } from "../support/process_tree.ts";
import { tempTree } from "../support/temp.ts";

const DOCS = new Set(["eiffel", "tokyo"]);
Deno.env.set("RB_COMMAND_SECRET", "cmd-s3cret-value");

/** Runs one question through a command system started in `dir`. */
async function ask(dir: string, extra: Record<string, unknown>) {
  const options = command.options.parse({
    type: "command",
    response: { answer: "$.answer", contexts: "$.contexts", doc_id: "$.doc_id" },
    timeout_s: 20,
    ...extra,
  });
  const instance = command.start!(options, { name: "pipe", configDir: dir, documentIds: DOCS });
  await instance.ready;
  const recorder = new TraceRecorder(modelOf(() => ({ content: "never asked" })));
  try {
    const outcome = await instance.run(options, {
      question: question("q1", 'How tall is the "Eiffel" Tower?'),
      recorder,
      tools: toolboxOf([]).session("q1"),
      retriever: null,
      signal: new AbortController().signal,
    });
    return { recorder, outcome, error: null };
  } catch (error) {
    return { recorder, outcome: null, error: error as Error };
  } finally {
    await instance.close();
  }
}

Deno.test("command gets the request on stdin and its stdout JSON is the reply", async () => {
  await using dir = await tempTree({
    // Echoes the request it read back as its answer, with its own env's secret.
    "pipe.ts": "const line = await new Response(Deno.stdin.readable).text();\n" +
      "console.log(JSON.stringify({ answer: line.trim(), env: Deno.env.get('MY_KEY'), " +
      "contexts: [{ doc_id: 'eiffel' }] }));\n",
  });
  const deno = [Deno.execPath(), "run", "--no-prompt", "--allow-env=MY_KEY", "./pipe.ts"];
  const { recorder, outcome, error } = await ask(dir.dir, {
    command: deno,
    env: { MY_KEY: "${RB_COMMAND_SECRET}" },
    response: {
      answer: "$.answer",
      contexts: "$.contexts",
      doc_id: "$.doc_id",
      cost_usd: "$.env",
    },
  });
  // The cost path reads a string: an error that quotes no secret.
  assert.ok(error instanceof SystemFailedError);
  assert.match(error.message, /sent a string as its cost at \$\.env/);
  assert.equal(outcome, null);
  assert.equal(recorder.steps.length, 0);
  const ok = await ask(dir.dir, { command: deno });
  assert.equal(ok.error, null);
  assert.equal(ok.outcome?.answer, '{"question":"How tall is the \\"Eiffel\\" Tower?"}');
  assert.deepEqual((ok.recorder.steps[0] as RetrievalStep).results.map((r) => r.doc_id), [
    "eiffel",
  ]);
  assert.equal((ok.recorder.steps[1] as ModelStep).service, Deno.execPath());
  // A reply that echoes the secret its env was given is masked before it is recorded.
  const echoed = await ask(dir.dir, {
    command: deno,
    env: { MY_KEY: "${RB_COMMAND_SECRET}" },
    response: { answer: "$.env" },
  });
  assert.equal(echoed.outcome?.answer, "[secret]");
});

Deno.test("command: an exit that is not 0 quotes the end of its stderr, secrets masked", async () => {
  await using dir = await tempTree({
    "fail.sh": 'echo "starting" >&2\necho "failed with key $MY_KEY" >&2\nexit 3\n',
  });
  const { error } = await ask(dir.dir, {
    command: ["sh", "./fail.sh"],
    env: { MY_KEY: "${RB_COMMAND_SECRET}" },
  });
  assert.ok(error instanceof SystemFailedError);
  assert.match(
    error.message,
    /^System "pipe" \(command\) at sh: "sh" exited with code 3; its stderr ends: starting \| failed with key \[secret\]\.$/,
  );
});

Deno.test("command: output that is not JSON is an error quoting its start, not retried", async () => {
  await using dir = await tempTree({
    "garbage.sh":
      'n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\necho "Loading model..."\necho \'{"answer": "x"}\'\n',
  });
  const { error } = await ask(dir.dir, { command: ["sh", "./garbage.sh"], max_retries: 3 });
  assert.ok(error instanceof SystemFailedError);
  assert.match(
    error.message,
    /wrote output that is not one JSON value .*it starts "Loading model\.\.\./,
  );
  assert.match(error.message, /logs go to stderr/);
  assert.equal((await Deno.readTextFile(dir.path("count"))).trim(), "1");
});

Deno.test("command: a failed exit is run again up to max_retries, and the retries are counted", async () => {
  await using dir = await tempTree({
    "flaky.sh": "n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\n" +
      'if [ "$n" -lt 2 ]; then exit 1; fi\necho \'{"answer": "third time"}\'\n',
  });
  const { recorder, outcome, error } = await ask(dir.dir, {
    command: ["sh", "./flaky.sh"],
    response: { answer: "$.answer" },
    max_retries: 2,
  });
  assert.equal(error, null);
  assert.equal(outcome?.answer, "third time");
  const step = recorder.steps.at(-1) as ModelStep;
  assert.equal(step.retries, 2);
  assert.deepEqual(step.http_statuses, [0, 0]);
});

Deno.test("command: stdout over max_response_mb kills it", async () => {
  await using dir = await tempTree({ "flood.sh": 'yes \'{"answer": "x"}\'\n' });
  const { error } = await ask(dir.dir, { command: ["sh", "./flood.sh"], max_response_mb: 0.5 });
  assert.ok(error instanceof SystemFailedError);
  assert.match(error.message, /wrote over 0\.5 MB to stdout .* and was killed/);
});

Deno.test("command: one that never exits is killed with what it started at timeout_s, no orphan", async () => {
  const marker = `rb_never_exits_${crypto.randomUUID().slice(0, 8)}`;
  await using dir = await tempTree({
    // A child in the background and the script itself both sleep for ever.
    "hang.sh": `sh -c 'sleep 1000; :' ${marker} &\nsh -c 'sleep 1001; :' ${marker}\n`,
  });
  try {
    const { error } = await ask(dir.dir, { command: ["sh", "./hang.sh"], timeout_s: 0.5 });
    assert.ok(error instanceof SystemFailedError);
    assert.match(error.message, /"sh" did not answer within 0\.5 s and was killed/);
    assert.deepEqual(await waitNoneWith(marker, 5_000), []);
  } finally {
    await killAllWith(marker);
  }
});

Deno.test("command: a program that does not exist says so", async () => {
  await using dir = await tempTree();
  const { error } = await ask(dir.dir, { command: ["./no_such_program"] });
  assert.ok(error instanceof SystemFailedError);
  assert.match(
    error.message,
    /\/no_such_program" was not found \(a relative path is the config folder's/,
  );
});
