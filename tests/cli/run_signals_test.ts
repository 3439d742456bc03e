import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runPrinted, spawnCli } from "../support/cli.ts";
import { slowEndpointRun, waitForLines } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";
import { killAll } from "../support/processes.ts";
import { waitUntil } from "../support/wait.ts";
import { toolProcesses } from "../support/probe_host.ts";

const RESULTS = "per_question_results.jsonl";
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** Every line of the results file is complete JSON; returns how many. */
function completeLines(path: string): number {
  const text = Deno.readTextFileSync(path);
  assert.ok(text.endsWith("\n"), "the file ends with a complete line");
  const lines = text.trimEnd().split("\n");
  for (const line of lines) JSON.parse(line);
  return lines.length;
}

for (const [signal, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
  Deno.test(`${signal} quits at once (exit ${code}) with its lines intact, the lock released and the resume command; resume writes the summaries`, async () => {
    await using run = await slowEndpointRun(150);
    const { t, out, permissions } = run;
    const child = spawnCli(permissions, run.runArgs);
    await waitForLines(join(out, RESULTS), 2);
    child.kill(signal);
    const status = await child.output();
    const stderr = decode(status.stderr);
    assert.equal(status.code, code, stderr);
    assert.match(stderr, new RegExp(`\\n${signal}: quitting at once\\.\\n`));
    // Started with explicit flags (deno run main.ts), so the resume command carries the flags
    // the resumed run needs: pasted as printed, it works.
    const port = new URL(run.baseUrl).port;
    const hint =
      `deno run --unstable-worker-options --unstable-raw-imports --allow-read=${
        t.path("c.yaml")
      },arenas/rag/corpus.json,arenas/rag/questions.yaml,tools,lib,${out} ` +
      `--allow-write=${out} --allow-net=127.0.0.1:${port} main.ts run ${
        t.path("c.yaml")
      } --resume ${out} --cache off`;
    assert.ok(
      stderr.includes(
        `Stopped at once: the finished results are kept in ${join(out, RESULTS)}; ` +
          `the summaries are written when the run is resumed. Continue with:\n  ${hint}\n`,
      ),
      stderr,
    );
    const kept = completeLines(join(out, RESULTS));
    assert.ok(kept >= 2 && kept < 15, `${kept} lines`);
    assert.throws(() => Deno.statSync(join(out, "run.lock")), Deno.errors.NotFound);
    assert.throws(() => Deno.statSync(join(out, "metrics_summary.csv")), Deno.errors.NotFound);

    const resumed = await runPrinted(hint);
    assert.equal(resumed.code, 0, resumed.stderr);
    const all = await readJsonl(join(out, RESULTS)) as QuestionResult[];
    assert.equal(all.length, 15);
    assert.equal(new Set(all.map((l) => l.question_id)).size, 15);
    assert.match(
      Deno.readTextFileSync(join(out, "metrics_summary.csv")),
      /^closed_book,closed_book,openai:test-model,15,/m,
    );
  });
}

Deno.test("a second Ctrl-C quits at once (exit 130) with its lines intact and the resume command", async () => {
  // The second question's answer never comes (until the test ends): the first Ctrl-C waits for
  // it, and the second, sent once the first was heard, quits at once, however loaded the machine.
  const release = new AbortController();
  await using run = await slowEndpointRun(100, { holdLater: release.signal });
  const { out, permissions } = run;
  const child = spawnCli(permissions, run.runArgs);
  const stdout = new Response(child.stdout).text();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  const readUntil = async (text: string | null) => {
    while (text === null || !stderr.includes(text)) {
      const { value, done } = await reader.read();
      if (done) return;
      stderr += value;
    }
  };
  let code: number;
  try {
    await waitForLines(join(out, RESULTS), 1);
    child.kill("SIGINT");
    await readUntil("Stopping after the questions in progress");
    child.kill("SIGINT");
    await readUntil(null);
    code = (await child.status).code;
    await stdout;
  } finally {
    release.abort();
    try {
      child.kill("SIGKILL");
    } catch { /* it has exited */ }
  }
  assert.equal(code, 130, stderr);
  assert.match(stderr, /Stopping after the questions in progress/);
  assert.match(stderr, /\nCtrl-C again: quitting at once\.\n/);
  assert.match(
    stderr,
    /Stopped at once: the finished results are kept in .*Continue with:\n {2}deno run .* main\.ts run .* --resume /,
  );
  assert.equal(completeLines(join(out, RESULTS)), 1);
  assert.throws(() => Deno.statSync(join(out, "run.lock")), Deno.errors.NotFound);
});

Deno.test("SIGTERM during a custom tool call closes the tool's process and exits 143", async () => {
  const probes = join(ROOT, "tests/fixtures/tools/probe_tools.ts");
  await using t = await tempTree({
    "q.yaml": "- {id: q1, question: Wait please?, checks: [{type: contains, value: x}]}\n",
    "mock.yaml": '"Wait please":\n  - {call: hang}\n  - {answer: done}\n',
    "c.yaml": `name: hang
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
mock_script: mock.yaml
tools: {timeout_s: 60}
systems: [{type: agent_search, tools: [{name: hang, path: "${probes}#hang"}]}]
`,
  });
  const child = spawnCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`, `--allow-run=${Deno.execPath()}`],
    ["run", t.path("c.yaml"), "--mock", "--out", t.path("out")],
  );
  const marker = `${probes} hang`;
  try {
    await waitUntil(() => toolProcesses(marker).length > 0);
    assert.equal(toolProcesses(marker).length, 1, "the tool's process started");
    await new Promise((r) => setTimeout(r, 500)); // the call is now waiting
    child.kill("SIGTERM");
    const status = await child.output();
    assert.equal(status.code, 143, decode(status.stderr));
    await waitUntil(() => toolProcesses(marker).length === 0);
    assert.deepEqual(toolProcesses(marker), [], "no tool process outlives ragbench");
  } finally {
    // A tool process that outlived ragbench is no longer this process's descendant.
    killAll([child.pid, ...toolProcesses(marker)]);
    await child.status;
  }
});

Deno.test("Ctrl-C stops a --mock run whose questions never wait, soon after it is pressed", async () => {
  const n = 30_000;
  const questions = Array.from(
    { length: n },
    (_, i) =>
      JSON.stringify({
        id: `q${i}`,
        question: `Question number ${i}?`,
        checks: [{ type: "contains", value: `${i}` }],
      }),
  ).join("\n") + "\n";
  await using t = await tempTree({
    "corpus.json": JSON.stringify([{ id: "d1", text: "A document." }]),
    "q.jsonl": questions,
    "c.yaml": "name: cpu_bound\ncorpus: corpus.json\nquestions: q.jsonl\n" +
      "systems:\n  - {type: closed_book, name: closed_book}\n",
  });
  const out = t.path("out");
  const child = spawnCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`],
    ["run", t.path("c.yaml"), "--mock", "--out", out],
  );
  await waitForLines(join(out, RESULTS), 200);
  child.kill("SIGINT");
  const status = await child.output();
  const stderr = decode(status.stderr);
  assert.equal(status.code, 130, stderr);
  assert.match(stderr, /Stopping after the questions in progress/);
  const kept = completeLines(join(out, RESULTS));
  // Before the event loop was given turns, every question ran before the Ctrl-C was seen.
  assert.ok(kept < n, `all ${kept} questions ran`);
  Deno.statSync(join(out, "metrics_summary.csv"));
});
