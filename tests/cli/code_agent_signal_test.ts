import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { execCli, ROOT, runCli, UNSTABLE_FLAGS } from "../support/cli.ts";
import { waitForLines } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";
const QUESTIONS = 12;
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/**
 * Code-agent questions whose one program waits, searches, waits again and
 * answers: each keeps a sandbox process busy for most of a second.
 */
function files(): Record<string, string> {
  const program = [
    "await new Promise((r) => setTimeout(r, 300));",
    'const found = await search({ query: "Eiffel Tower" });',
    "print(found.slice(0, 40));",
    "await new Promise((r) => setTimeout(r, 300));",
    'final_answer("It is 330 metres tall.");',
  ].join(" ");
  return {
    "corpus.json": JSON.stringify([
      { id: "eiffel", title: "Eiffel Tower", text: "The Eiffel Tower is 330 metres tall." },
    ]),
    "q.jsonl": Array.from({ length: QUESTIONS }, (_, i) =>
      JSON.stringify({
        id: `q${String(i + 1).padStart(2, "0")}`,
        question: `Case ${i + 1}: how tall is the Eiffel Tower?`,
        checks: [{ type: "contains", value: "330" }],
      })).join("\n") + "\n",
    "mock.yaml": `"how tall is the Eiffel Tower":\n  - {code: ${JSON.stringify(program)}}\n`,
    "c.yaml": `name: signals
corpus: corpus.json
questions: q.jsonl
mock_script: mock.yaml
evaluation: {concurrency: 3}
systems:
  - {type: code_agent, name: code}
`,
  };
}

function permissions(dir: string): string[] {
  return [`--allow-read=${ROOT},${dir}`, `--allow-write=${dir}`, `--allow-run=${Deno.execPath()}`];
}

/** Each result line by question id, with its timing fields zeroed. */
function linesById(path: string): Map<string, string> {
  const lines = Deno.readTextFileSync(path).trimEnd().split("\n").filter(Boolean);
  return new Map(lines.map((line) => [
    JSON.parse(line).question_id as string,
    line.replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":0'),
  ]));
}

/** Pids of the processes whose parent is `pid`. */
async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await new Deno.Command("ps", { args: ["-o", "pid=", "--ppid", String(pid)] })
    .output();
  return decode(stdout).split(/\s+/).filter(Boolean).map(Number);
}

/**
 * Runs the config in a process group of its own (as a shell runs a
 * foreground job), and once questions are in progress sends SIGINT to the
 * whole group, as a terminal's Ctrl-C does; `alsoChildren` also signals
 * each sandbox process by its pid (what `pkill`, or a platform without
 * sessions, would do). Returns the exit status and stderr.
 */
async function interruptedRun(
  dir: string,
  out: string,
  alsoChildren: boolean,
): Promise<{ code: number; stderr: string; signalled: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...UNSTABLE_FLAGS,
      ...permissions(dir),
      `${ROOT}main.ts`,
      "run",
      join(dir, "c.yaml"),
      "--mock",
      "--out",
      out,
      "--quiet",
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
    detached: true,
  }).spawn();
  let sandboxes: number[] = [];
  try {
    await waitForLines(join(out, RESULTS), 2);
    for (let i = 0; i < 200 && sandboxes.length === 0; i++) {
      sandboxes = await childrenOf(child.pid);
      if (sandboxes.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(sandboxes.length > 0, "sandbox processes are running when the signal is sent");
    Deno.kill(-child.pid, "SIGINT");
    if (alsoChildren) {
      for (const pid of sandboxes) {
        try {
          Deno.kill(pid, "SIGINT");
        } catch { /* it ended meanwhile */ }
      }
    }
  } catch (error) {
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch { /* gone */ }
    await child.output();
    throw error;
  }
  const status = await child.output();
  return { code: status.code, stderr: decode(status.stderr), signalled: sandboxes.length };
}

async function checkInterrupted(alsoChildren: boolean): Promise<string> {
  await using t = await tempTree(files());
  const whole = t.path("whole");
  const clean = await execCli(permissions(t.dir), [
    "run",
    t.path("c.yaml"),
    "--mock",
    "--out",
    whole,
    "--quiet",
  ]);
  assert.equal(clean.code, 0, clean.stderr);
  const expected = linesById(join(whole, RESULTS));
  assert.equal(expected.size, QUESTIONS);
  for (const line of expected.values()) assert.match(line, /"passed":true/);

  const out = t.path("out");
  const run = await interruptedRun(t.dir, out, alsoChildren);
  assert.equal(run.code, 130, run.stderr);
  const kept = linesById(join(out, RESULTS));
  assert.ok(kept.size < QUESTIONS, `${kept.size} lines: the run was not cut short`);
  for (const [id, line] of kept) assert.equal(line, expected.get(id), `question ${id}`);

  const resumed = await execCli(permissions(t.dir), [
    "run",
    t.path("c.yaml"),
    "--mock",
    "--resume",
    out,
    "--quiet",
  ]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(linesById(join(out, RESULTS)), expected, "the resumed run equals the whole one");
  return run.stderr;
}

Deno.test("a Ctrl-C to the whole process group during code-agent questions leaves every kept line as an uninterrupted run wrote it, and resume completes the run", async () => {
  const stderr = await checkInterrupted(false);
  assert.match(stderr, /Stopping after the questions in progress/);
  // The sandboxes are in sessions of their own: the questions in progress finished and were kept.
  assert.doesNotMatch(stderr, /not kept/);
});

Deno.test("questions whose sandbox a signal stopped are not kept, so resume runs them again", async () => {
  const stderr = await checkInterrupted(true);
  assert.match(
    stderr,
    /cancelled: \d+ questions not run \(\d+ of them were not kept: a tool process stopped while they ran\)/,
  );
});

Deno.test("a program that signals its own sandbox process cannot keep its question out of the results", async () => {
  await using t = await tempTree({
    "corpus.json": JSON.stringify([{ id: "a", title: "A", text: "alpha" }]),
    "q.yaml":
      `- {id: dodge, question: "Dodge the score", checks: [{type: contains, value: "x"}]}\n`,
    "mock.yaml": `"Dodge the score":\n  - {code: ${
      JSON.stringify('Deno.kill(Deno.pid, "SIGINT"); await new Promise(() => {});')
    }}\n  - {answer: "no idea"}\n`,
    "c.yaml": "name: t\ncorpus: corpus.json\nquestions: q.yaml\nmock_script: mock.yaml\n" +
      "systems:\n  - {type: code_agent, name: code}\n",
  });
  const out = t.path("out");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  assert.equal(result.code, 0, result.stderr);
  const [line] = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(line.question_id, "dodge");
  assert.equal(line.passed, false);
  assert.equal(line.format_errors, 1, "the killed program counts against the system");
});
