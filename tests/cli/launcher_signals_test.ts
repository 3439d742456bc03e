import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import { LAUNCHED_AS } from "../../lib/cli/invocation.ts";
import { lineAfter, ROOT, runPrinted, spawnLauncher } from "../support/cli.ts";
import { isRunning, killAll, processesWith, runningDescendants } from "../support/processes.ts";
import { slowEndpointRun, waitForLines } from "../support/slow_run.ts";
import { waitUntil } from "../support/wait.ts";

const RESULTS = "per_question_results.jsonl";
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** `deno task ragbench <argv>` in a session of its own (its pid is its process group). */
function spawnTask(argv: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "ragbench", ...argv],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
}

/** The ragbench process a launcher started (main.ts with the launcher's hidden argument). */
async function ragbenchUnder(launcher: number): Promise<number> {
  let found: number[] = [];
  await waitUntil(() => {
    const under = new Set(runningDescendants(launcher).map((e) => e.pid));
    found = processesWith("main.ts", LAUNCHED_AS).filter((pid) => under.has(pid));
    return found.length > 0;
  });
  assert.equal(found.length, 1, "one ragbench process under the launcher");
  return found[0];
}

/** Ends `process`, its group and whatever it started, when a test fails midway. */
async function stop(process: Deno.ChildProcess): Promise<void> {
  killAll(runningDescendants(process.pid).map((e) => e.pid));
  try {
    Deno.kill(-process.pid, "SIGKILL");
  } catch {
    try {
      process.kill("SIGKILL");
    } catch { /* gone */ }
  }
  await process.output().catch(() => {});
}

Deno.test("Ctrl-C to deno task's process group stops the run once, gracefully; the printed command finishes it", async () => {
  await using run = await slowEndpointRun(150);
  const args = ["run", run.t.path("c.yaml"), "--cache", "off", "--out", run.out];
  const task = spawnTask(args);
  let output;
  try {
    await waitForLines(join(run.out, RESULTS), 2);
    // What a terminal's Ctrl-C does: SIGINT to the foreground group (deno task and the launcher,
    // which deno task also passes it on to). ragbench, in its own session, gets it from the launcher.
    Deno.kill(-task.pid, "SIGINT");
    output = await task.output();
  } catch (error) {
    await stop(task);
    throw error;
  }
  const stderr = decode(output.stderr);
  assert.equal(output.code, 130, stderr);
  assert.doesNotMatch(stderr, /quitting at once/);
  assert.match(stderr, /Stopping after the questions in progress/);
  const hint = lineAfter(stderr, "the summaries cover what finished. Finish with:");
  assert.equal(
    hint,
    `deno task ragbench run ${run.t.path("c.yaml")} --resume ${run.out} --cache off`,
  );
  assert.ok(
    Deno.statSync(join(run.out, "metrics_summary.csv")).isFile,
    "the summaries are written",
  );
  const finished = await runPrinted(hint);
  assert.equal(finished.code, 0, finished.stderr);
  assert.equal((await readJsonl(join(run.out, RESULTS))).length, 15);
});

Deno.test("the launcher passes one Ctrl-C on once even when it arrives twice at once; a later one quits", async () => {
  await using run = await slowEndpointRun(150);
  const launcher = spawnLauncher(["run", run.t.path("c.yaml"), "--cache", "off", "--out", run.out]);
  let output;
  try {
    await waitForLines(join(run.out, RESULTS), 2);
    launcher.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 5));
    launcher.kill("SIGINT");
    output = await launcher.output();
  } catch (error) {
    await stop(launcher);
    throw error;
  }
  const stderr = decode(output.stderr);
  assert.equal(output.code, 130, stderr);
  assert.doesNotMatch(stderr, /quitting at once/);
  // Started as the installed command runs it: the printed command is `ragbench ...`.
  assert.equal(
    lineAfter(stderr, "Finish with:"),
    `ragbench run ${run.t.path("c.yaml")} --resume ${run.out} --cache off`,
  );

  await using slow = await slowEndpointRun(2000);
  const second = spawnLauncher(["run", slow.t.path("c.yaml"), "--cache", "off", "--out", slow.out]);
  try {
    await waitForLines(join(slow.out, RESULTS), 1);
    second.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 600));
    second.kill("SIGINT");
    output = await second.output();
  } catch (error) {
    await stop(second);
    throw error;
  }
  const quit = decode(output.stderr);
  assert.equal(output.code, 130, quit);
  assert.match(quit, /\nCtrl-C again: quitting at once\.\n/);
});

Deno.test("SIGTERM to deno task quits ragbench at once (exit 143); the printed resume command works", async () => {
  await using run = await slowEndpointRun(150);
  const task = spawnTask(["run", run.t.path("c.yaml"), "--cache", "off", "--out", run.out]);
  let output;
  try {
    await waitForLines(join(run.out, RESULTS), 2);
    task.kill("SIGTERM");
    output = await task.output();
  } catch (error) {
    await stop(task);
    throw error;
  }
  const stderr = decode(output.stderr);
  assert.equal(output.code, 143, stderr);
  assert.match(stderr, /\nSIGTERM: quitting at once\.\n/);
  assert.throws(() => Deno.statSync(join(run.out, "run.lock")), Deno.errors.NotFound);
  const hint = lineAfter(stderr, "Continue with:");
  assert.equal(
    hint,
    `deno task ragbench run ${run.t.path("c.yaml")} --resume ${run.out} --cache off`,
  );
  const resumed = await runPrinted(hint);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal((await readJsonl(join(run.out, RESULTS))).length, 15);
});

Deno.test("a launcher killed with SIGKILL leaves nothing running: ragbench sees it go and quits, releasing the folder", async () => {
  await using run = await slowEndpointRun(150);
  const launcher = spawnLauncher(["run", run.t.path("c.yaml"), "--cache", "off", "--out", run.out]);
  let ragbench = 0;
  try {
    await waitForLines(join(run.out, RESULTS), 2);
    ragbench = await ragbenchUnder(launcher.pid);
    launcher.kill("SIGKILL");
    // Its pipes close when ragbench, which holds them too, has ended.
    const output = await launcher.output();
    assert.match(decode(output.stderr), /\nthe launcher is gone: quitting at once\.\n/);
    assert.ok(await waitUntil(() => !isRunning(ragbench)), "ragbench is still running");
    assert.throws(() => Deno.statSync(join(run.out, "run.lock")), Deno.errors.NotFound);
  } finally {
    if (ragbench) killAll(runningDescendants(ragbench).map((e) => e.pid).concat(ragbench));
    await stop(launcher);
  }
});
