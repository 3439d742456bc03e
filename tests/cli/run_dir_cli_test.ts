import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { execCli, ROOT, runCli, spawnCli, taskCli, withoutLoadNotes } from "../support/cli.ts";
import { slowEndpointRun, waitForLines } from "../support/slow_run.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = join(ROOT, "configs/rag.yaml");
const RESULTS = "per_question_results.jsonl";

Deno.test("--out naming a regular file says it is a file (exit 2) and leaves it alone", async () => {
  await using t = await tempTree({ "notes.txt": "mine" });
  const result = await runCli(["run", CONFIG, "--mock", "--out", t.path("notes.txt")]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `--out ${
      t.path("notes.txt")
    }: that is a file, not a folder; name a folder (new or empty) for the run.`,
  );
  assert.equal(Deno.readTextFileSync(t.path("notes.txt")), "mine");
});

Deno.test("--out and --resume under a regular file name the file (exit 2), not an OS error", async () => {
  await using t = await tempTree({ "results.txt": "mine" });
  for (
    const [flag, path, verb] of [
      ["--out", t.path("results.txt/sub"), "made"],
      ["--out", t.path("results.txt/a/b"), "made"],
      ["--resume", t.path("results.txt/sub"), "found"],
    ]
  ) {
    const argv = flag === "--out"
      ? ["run", CONFIG, "--mock", "--out", path]
      : ["run", CONFIG, "--resume", path, "--mock"];
    const result = await runCli(argv);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      `${flag} ${path}: "${
        t.path("results.txt")
      }" is a file, so no folder can be ${verb} under it; name a path whose parent folders are folders.`,
    );
  }
  assert.equal(Deno.readTextFileSync(t.path("results.txt")), "mine");
});

Deno.test("--out into a folder of the user's files refuses, naming them, and overwrites nothing", async () => {
  await using t = await tempTree({
    "mine/metrics_summary.csv": "my own numbers\n",
    "mine/report.docx": "x",
  });
  const result = await runCli(["run", CONFIG, "--mock", "--out", t.path("mine")]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `--out ${
      t.path("mine")
    }: the folder is not empty and holds no ragbench run ("metrics_summary.csv", "report.docx"); a run would overwrite files there. Choose a new or empty folder.`,
  );
  assert.equal(Deno.readTextFileSync(t.path("mine/metrics_summary.csv")), "my own numbers\n");
  assert.deepEqual([...Deno.readDirSync(t.path("mine"))].map((e) => e.name).sort(), [
    "metrics_summary.csv",
    "report.docx",
  ]);
});

Deno.test("--out into an existing empty folder runs", async () => {
  await using t = await tempTree();
  Deno.mkdirSync(t.path("empty"));
  const result = await runCli([
    "run",
    CONFIG,
    "--mock",
    "--out",
    t.path("empty"),
    "--limit",
    "1",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal((await readJsonl(join(t.path("empty"), RESULTS))).length, 2);
  assert.throws(() => Deno.statSync(t.path("empty/run.lock")), Deno.errors.NotFound);
});

const usageErrors: Array<{ name: string; argv: (dir: string) => string[]; message: string }> = [
  {
    name: '--systems "" (an unset CI variable)',
    argv: () => ["run", CONFIG, "--mock", "--systems", ""],
    message:
      '--systems names no system (got ""); list them by name, e.g. --systems a,b, or leave the option out to run every system.',
  },
  {
    name: "--systems of only commas and spaces",
    argv: () => ["run", CONFIG, "--mock", "--systems= , ,"],
    message:
      '--systems names no system (got " , ,"); list them by name, e.g. --systems a,b, or leave the option out to run every system.',
  },
  {
    name: '--out ""',
    argv: () => ["run", CONFIG, "--mock", "--out", ""],
    message: "--out is empty; give it a folder: --out DIR.",
  },
  {
    name: '--resume ""',
    argv: () => ["run", CONFIG, "--mock", "--resume", " "],
    message: "--resume is empty; give it a folder: --resume DIR.",
  },
  {
    name: "--limit 0",
    argv: () => ["run", CONFIG, "--mock", "--limit", "0"],
    message: '--limit must be a whole number from 1 to 1000000 (got "0").',
  },
  {
    name: "--concurrency of nothing",
    argv: () => ["run", CONFIG, "--mock", "--concurrency="],
    message: '--concurrency must be a whole number from 1 to 64 (got "").',
  },
  {
    name: "--resume naming a file",
    argv: (d) => {
      Deno.writeTextFileSync(join(d, "f.jsonl"), "");
      return ["run", CONFIG, "--mock", "--resume", join(d, "f.jsonl")];
    },
    message:
      "--resume {tmp}/f.jsonl: that is a file, not a folder; name a folder holding an earlier run.",
  },
  {
    name: "--resume naming a missing folder",
    argv: (d) => ["run", CONFIG, "--mock", "--resume", join(d, "nope")],
    message: "--resume {tmp}/nope: there is no such folder.",
  },
  {
    name: "--resume where the results file is a folder",
    argv: (d) => {
      Deno.mkdirSync(join(d, "run", RESULTS), { recursive: true });
      return ["run", CONFIG, "--mock", "--resume", join(d, "run")];
    },
    message: `--resume {tmp}/run: ${RESULTS} there is not a file.`,
  },
];

for (const u of usageErrors) {
  Deno.test(`usage error: ${u.name} (exit 2, nothing written)`, async () => {
    await using t = await tempTree();
    const runs = () =>
      [...Deno.readDirSync(ROOT)].some((e) => e.name === "runs")
        ? [...Deno.readDirSync(join(ROOT, "runs"))].length
        : 0;
    const argv = u.argv(t.dir);
    const before = [...Deno.readDirSync(t.dir)].length;
    const runsBefore = runs();
    const result = await runCli(argv);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stderr, u.message.replaceAll("{tmp}", t.dir));
    assert.equal([...Deno.readDirSync(t.dir)].length, before, "nothing written");
    assert.equal(runs(), runsBefore, "no default run folder created");
  });
}

Deno.test("resume refuses a results file whose lines are not ragbench results", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  assert.equal(
    (await runCli(["run", CONFIG, "--mock", "--out", out, "--limit", "1"])).code,
    0,
  );
  Deno.writeTextFileSync(join(out, RESULTS), '{"name":"someone else\'s data"}\n', { append: true });
  const result = await runCli([
    "run",
    CONFIG,
    "--mock",
    "--resume",
    out,
    "--limit",
    "1",
  ]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /": result 3 is not a ragbench result line \(system: Invalid input: expected string, received undefined\)/,
  );
});

Deno.test("two runs started together on one --out: one refuses, the other's results are intact", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  const permissions = [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`];
  const argv = ["run", CONFIG, "--mock", "--out", out];
  const [a, b] = await Promise.all([execCli(permissions, argv), execCli(permissions, argv)]);
  const codes = [a.code, b.code].sort();
  assert.deepEqual(codes, [0, 2], `${a.stderr}\n---\n${b.stderr}`);
  const loser = a.code === 2 ? a : b;
  // Which refusal the loser gives depends on how far the winner got: its lock written (pid),
  // just created (still empty), or the run already finished.
  assert.match(
    loser.stderr,
    /is in use by another run \(ragbench pid \d+|is in use by a run that is starting \(its run\.lock is still empty\)|already holds results/,
  );
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 30);
  assert.equal(new Set(lines.map((l) => `${l.system}/${l.question_id}/${l.repeat}`)).size, 30);
  assert.throws(() => Deno.statSync(join(out, "run.lock")), Deno.errors.NotFound);
});

Deno.test("a live run's folder is refused to a second run, whether named relatively or absolutely", async () => {
  // The endpoint holds every reply after the first until the second run has been refused, so the
  // first run is still going then however loaded the machine is (it once finished first).
  const hold = new AbortController();
  await using run = await slowEndpointRun(100, { holdLater: hold.signal });
  const { t, out, permissions } = run;
  const child = spawnCli(permissions, run.runArgs);
  try {
    await waitForLines(join(out, RESULTS), 1);
    // From another working folder, through a relative path: the same lock.
    const cwd = t.path("elsewhere");
    Deno.mkdirSync(cwd);
    const rel = relative(cwd, out);
    const second = await execCli(permissions, [
      "run",
      t.path("c.yaml"),
      "--cache",
      "off",
      "--resume",
      rel,
    ], { cwd });
    assert.equal(second.code, 2, second.stderr);
    // A slow load (a loaded machine) prints its "questions: loaded ..." line first.
    assert.match(
      withoutLoadNotes(second.stderr),
      new RegExp(
        `(?:^|\\n)"${rel}" is in use by another run \\(ragbench pid ${child.pid}, started [0-9T:.Z-]+\\)\\. Wait for it to finish, or write this run elsewhere with --out\\.\\n$`,
      ),
    );
  } finally {
    hold.abort();
    try {
      child.kill("SIGINT");
    } catch {
      // It had ended already: a failed assertion above is the news, not this.
    }
    await child.output();
  }
});

Deno.test("a default run folder already taken in the same second gets the next free suffix", async () => {
  await using t = await tempTree();
  // Take the default folders of the next few seconds, so the run starts in one of them.
  const now = Date.now();
  const stamps: string[] = [];
  for (let s = 0; s < 8; s++) {
    const stamp = new Date(now + s * 1000).toISOString().replace(/[-:]/g, "").replace("T", "-")
      .slice(0, 15);
    stamps.push(stamp);
    Deno.mkdirSync(join(t.dir, "runs", `rag-${stamp}`, "taken"), { recursive: true });
  }
  const result = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`],
    ["run", CONFIG, "--mock", "--limit", "1"],
    { cwd: t.dir },
  );
  assert.equal(result.code, 0, result.stderr);
  const written = /writing (runs\/rag-\d{8}-\d{6}-2)\n/.exec(result.stderr)?.[1];
  assert.ok(written && stamps.some((s) => written === `runs/rag-${s}-2`), result.stderr);
  assert.equal((await readJsonl(join(t.dir, written, RESULTS))).length, 2);
});

Deno.test("through deno task ragbench (reads granted only where the run reads), --out under a file is still exit 2 saying so", async () => {
  await using t = await tempTree({ "results.txt": "mine" });
  const out = t.path("results.txt/sub");
  const result = await taskCli(["run", CONFIG, "--mock", "--out", out]);
  assert.equal(result.code, 2, result.stderr);
  assert.equal(
    result.stderr.trim(),
    `--out ${out}: a part of that path is a file, so no folder can be made under it; name a path whose parent folders are folders.`,
  );
});
