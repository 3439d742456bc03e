import assert from "node:assert/strict";
import {
  canSignalGroups,
  spawnTracked,
  type TrackedChild,
  unaskedExits,
} from "../../../lib/util/child_registry.ts";
import { ROOT } from "../../support/cli.ts";
import { isRunning, killAll } from "../../support/processes.ts";
import { waitUntil } from "../../support/wait.ts";

const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };

/** Process group and session of every live process, from `/proc` (through `sh`). */
function groups(): Array<{ pid: number; pgid: number; sid: number }> {
  const script = 'for f in /proc/[0-9]*/stat; do read -r l < "$f" && printf "%s\\n" "$l"; done';
  const { stdout } = new Deno.Command("sh", { args: ["-c", script], stderr: "null" }).outputSync();
  const rows = [];
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    const close = line.lastIndexOf(")");
    if (close < 0) continue;
    const [state, _ppid, pgid, sid] = line.slice(close + 2).split(" ");
    if (state === "Z") continue;
    rows.push({
      pid: Number(line.slice(0, line.indexOf(" "))),
      pgid: Number(pgid),
      sid: Number(sid),
    });
  }
  return rows;
}

/** Live processes of process group `pgid`. */
function members(pgid: number): number[] {
  return groups().filter((g) => g.pgid === pgid).map((g) => g.pid);
}

/** Kills `children` and what their groups hold (a test's cleanup, whatever happened). */
function cleanUp(...children: TrackedChild[]): void {
  for (const child of children) {
    child.kill();
    killAll(members(child.pid));
  }
}

Deno.test("a tracked child runs in a session of its own; only an exit ragbench did not ask for is counted", async () => {
  const killed = spawnTracked("sleep", { args: ["60"], env });
  const signalled = spawnTracked("sleep", { args: ["60"], env });
  const closed = spawnTracked("sh", { args: ["-c", "read x"], env });
  try {
    const mine = groups().find((g) => g.pid === Deno.pid)!;
    const row = groups().find((g) => g.pid === killed.pid)!;
    assert.deepEqual(row, { pid: killed.pid, pgid: killed.pid, sid: killed.pid });
    assert.notEqual(row.sid, mine.sid);

    const before = unaskedExits();
    killed.kill();
    await killed.exited;
    assert.equal(killed.running, false);
    assert.equal(killed.stopping, true);
    assert.equal((await killed.status).signal, "SIGKILL");
    // Stopped (its stdin closed), it ends by itself: asked for too.
    closed.stop();
    await closed.stdin.close();
    await closed.exited;
    assert.equal(unaskedExits(), before);

    // A signal from elsewhere (a `pkill`, a service manager) is an unasked exit.
    Deno.kill(signalled.pid, "SIGTERM");
    await signalled.exited;
    assert.equal(signalled.stopping, false);
    assert.equal(unaskedExits(), before + 1);
  } finally {
    cleanUp(killed, signalled, closed);
  }
});

Deno.test("a group child is killed with its group, and its exit takes what is left of the group with it", async () => {
  assert.ok(canSignalGroups(), "the test runs with --allow-run");
  const killed = spawnTracked("sh", { args: ["-c", "sleep 60 & read x"], env, group: true });
  const exiting = spawnTracked("sh", { args: ["-c", "sleep 61 & read x"], env, group: true });
  const alone = spawnTracked("sh", { args: ["-c", "sleep 62 & read x"], env });
  try {
    for (const child of [killed, exiting, alone]) {
      assert.ok(await waitUntil(() => members(child.pid).length === 2), "its sleep started");
    }
    killed.kill();
    await killed.exited;
    assert.ok(await waitUntil(() => members(killed.pid).length === 0), "the group is gone");

    // Its shell ends (end of input); the sleep it left behind is killed with the group.
    await exiting.stdin.close();
    await exiting.exited;
    assert.ok(await waitUntil(() => members(exiting.pid).length === 0), "the group is gone");

    // Without `group`, only the child itself is killed.
    alone.kill();
    await alone.exited;
    assert.equal(members(alone.pid).length, 1);
  } finally {
    cleanUp(killed, exiting, alone);
  }
});

Deno.test("a process that exits without stopping its tracked children leaves none of them running", async () => {
  const fixture = new URL("../../fixtures/processes/leave_children.ts", import.meta.url).pathname;
  const { stdout, code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-run", "--allow-env=PATH", fixture],
    cwd: ROOT,
    stderr: "inherit",
  }).output();
  const pids = JSON.parse(new TextDecoder().decode(stdout)) as { single: number; group: number };
  try {
    assert.equal(code, 0);
    assert.ok(await waitUntil(() => !isRunning(pids.single)), "the plain child was killed");
    assert.ok(
      await waitUntil(() => members(pids.group).length === 0),
      "the group child and what it started were killed",
    );
  } finally {
    killAll([pids.single, ...members(pids.group)]);
  }
});

Deno.test("a child that ends itself for a limit ragbench set (its watchdog says so) is not an unasked exit", async () => {
  // The watchdog's way: a marker on stderr, then SIGKILL of its own process, before ragbench's
  // kill. Whether the exit is ragbench's is known only once stderr is read.
  const script = 'echo "over-the-limit" >&2; kill -9 $$';
  let said = "";
  const selfKilled = spawnTracked("sh", {
    args: ["-c", script],
    env,
    endedByItsLimits: async () => {
      said = await new Response(selfKilled.stderr).text();
      return said.includes("over-the-limit");
    },
  });
  let other: TrackedChild | null = null;
  try {
    const before = unaskedExits();
    await selfKilled.exited;
    assert.equal((await selfKilled.status).signal, "SIGKILL");
    assert.equal(said.trim(), "over-the-limit");
    assert.equal(selfKilled.stopping, true);
    assert.equal(unaskedExits(), before);
    // The same end without the limit's word is counted.
    other = spawnTracked("sh", { args: ["-c", script.replace("over-the-limit", "crash")], env });
    await other.exited;
    await other.stderr.cancel();
    assert.equal(unaskedExits(), before + 1);
  } finally {
    cleanUp(selfKilled, ...(other ? [other] : []));
  }
});

Deno.test("a kill after the child already died unasked (while its limits are looked up) does not make the exit asked", async () => {
  let lookedUp = () => {};
  const looking = new Promise<void>((resolve) => lookedUp = resolve);
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const child = spawnTracked("sleep", {
    args: ["60"],
    env,
    endedByItsLimits: async () => {
      lookedUp();
      await held;
      return false;
    },
  });
  try {
    const before = unaskedExits();
    Deno.kill(child.pid, "SIGTERM");
    await looking;
    // A question's clean-up killing the process it has not yet seen end.
    child.kill();
    release();
    await child.exited;
    assert.equal(child.stopping, false);
    assert.equal(unaskedExits(), before + 1);
  } finally {
    release();
    cleanUp(child);
  }
});
