import assert from "node:assert/strict";
import {
  commandLines,
  cpuMsOf,
  isRunning,
  killAll,
  moduleDescendants,
  otherModulesProcesses,
  ownTaskDir,
  ownThreadCpuMs,
  parseStat,
  processEntry,
  processesWith,
  runningDescendants,
} from "./processes.ts";
import { reapLeftovers } from "./reaper.ts";
import { ownCpuMs } from "./cpu_time.ts";
import { waitUntil } from "./wait.ts";

/**
 * A worker (another thread of this process, as another test module is under `deno test
 * --parallel`) that runs `body` on each message and posts back what it returns.
 */
function otherThread(body: string): { ask: () => Promise<unknown>; stop: () => void } {
  const source =
    `self.onmessage = async () => { self.postMessage(await (async () => { ${body} })()); };`;
  const worker = new Worker(`data:text/javascript,${encodeURIComponent(source)}`, {
    type: "module",
    deno: { permissions: "inherit" },
  });
  return {
    ask: () =>
      new Promise((resolve, reject) => {
        worker.onmessage = (e) => resolve(e.data);
        worker.onerror = (e) => reject(new Error(e.message));
        worker.postMessage(null);
      }),
    stop: () => worker.terminate(),
  };
}

/** A `deno eval` child that spends `cpuMs` of its own CPU, prints "ready", then sleeps. */
function spinThenSleep(cpuMs: number): Deno.ChildProcess {
  const code = `import process from "node:process";
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
    let x = 0;
    for (let i = 0; i < 1e9 && cpu() < ${cpuMs}; i++) x += Math.sqrt(i);
    console.log("ready", x > 0);
    setTimeout(() => {}, 600_000);`;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}

async function firstLine(child: Deno.ChildProcess): Promise<string> {
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return value ?? "";
}

Deno.test("parseStat reads a stat line whose name holds spaces and parentheses", () => {
  const line = "4242 (my (odd) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 25 7 0 0 20 0 1 0 " +
    "12345 1000 10 18446744073709551615";
  assert.deepEqual(parseStat(line), {
    pid: 4242,
    ppid: 17,
    state: "S",
    name: "my (odd) name",
    cpuMs: 320,
  });
  assert.equal(parseStat("not a stat line"), null);
});

Deno.test("the process table sees this process, its children and their CPU time", async () => {
  assert.equal(processEntry(Deno.pid)?.pid, Deno.pid);
  assert.equal(processEntry(-1), null);
  const child = spinThenSleep(300);
  try {
    assert.match(await firstLine(child), /^ready true/);
    assert.ok(isRunning(child.pid));
    assert.ok(runningDescendants(Deno.pid).some((e) => e.pid === child.pid));
    assert.deepEqual(moduleDescendants().map((e) => e.pid), [child.pid]);
    assert.ok(cpuMsOf(child.pid) >= 250, `read ${cpuMsOf(child.pid)} ms of CPU`);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  assert.ok(!isRunning(child.pid));
  assert.equal(cpuMsOf(child.pid), 0);
});

Deno.test("the reaper kills what a test left running, with its own children, and names them", async () => {
  // A child that starts a grandchild and prints its pid: both are left running.
  const code = `const g = new Deno.Command(Deno.execPath(), {
      args: ["eval", "setTimeout(() => {}, 600_000)"], stdin: "null" }).spawn();
    console.log(g.pid);
    setTimeout(() => {}, 600_000);`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--allow-run", code],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const grandchild = Number(await firstLine(child));
  assert.ok(isRunning(grandchild));
  const reaped = reapLeftovers();
  assert.deepEqual(
    reaped.map((r) => Number(r.split(" ")[0])).sort(),
    [child.pid, grandchild].sort(),
  );
  assert.match(
    reaped.join("\n"),
    new RegExp(`^${grandchild} deno \\(child of ${child.pid}, `, "m"),
  );
  assert.equal((await child.status).signal, "SIGKILL");
  assert.ok(await waitUntil(() => !isRunning(grandchild)), "the grandchild was killed too");
  assert.deepEqual(reapLeftovers(), [], "nothing is left");
});

Deno.test("command lines are read with their arguments; processesWith wants its parts in order", async () => {
  const marker = `marker-${crypto.randomUUID()}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "setTimeout(() => {}, 600_000)", "first part", marker],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    assert.ok(await waitUntil(() => processesWith(marker).length > 0));
    const line = commandLines().find((c) => c.pid === child.pid);
    assert.equal(
      line?.args,
      `${Deno.execPath()} eval setTimeout(() => {}, 600_000) first part ${marker}`,
    );
    assert.deepEqual(processesWith("eval", "first part", marker), [child.pid]);
    assert.deepEqual(processesWith(marker, "first part"), []);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  assert.deepEqual(processesWith(marker), []);
});

Deno.test("a module's processes are those its own thread started, not another thread's", async () => {
  assert.match(ownTaskDir() ?? "", new RegExp(`^/proc/${Deno.pid}/task/\\d+$`));
  const marker = `marker-${crypto.randomUUID()}`;
  const other = otherThread(`const c = new Deno.Command(Deno.execPath(), {
      args: ["eval", "setTimeout(() => {}, 600_000)", "${marker}"], stdin: "null" }).spawn();
    return c.pid;`);
  let theirs = 0;
  try {
    theirs = Number(await other.ask());
    assert.ok(isRunning(theirs));
    assert.ok(runningDescendants(Deno.pid).some((e) => e.pid === theirs));
    assert.deepEqual(moduleDescendants(), [], "the other thread's child is not this module's");
    assert.ok(otherModulesProcesses().has(theirs));
    assert.ok(commandLines().some((c) => c.pid === theirs && c.args.endsWith(marker)));
    assert.deepEqual(processesWith(marker), [], "processesWith leaves it to its own module");
    assert.deepEqual(reapLeftovers(), []);
    assert.ok(isRunning(theirs), "the reaper left the other thread's child alone");
  } finally {
    killAll([theirs]);
    other.stop();
  }
  assert.ok(await waitUntil(() => !isRunning(theirs)));
});

Deno.test("a test's CPU time counts its own thread's work, not another thread's", async () => {
  // The other thread spins until the process has used 500 ms more CPU (this thread waits).
  const other = otherThread(`const { default: process } = await import("node:process");
    const start = process.cpuUsage(); let x = 0;
    const used = () => { const u = process.cpuUsage(start); return (u.user + u.system) / 1000; };
    for (let i = 1; i < 1e10; i++) { x += Math.sqrt(i); if (i % 100_000 === 0 && used() >= 500) break; }
    return x > 0;`);
  try {
    const before = ownCpuMs();
    const threadBefore = ownThreadCpuMs();
    assert.equal(await other.ask(), true);
    assert.ok(ownCpuMs() - before < 150, `${ownCpuMs() - before} ms while another thread spun`);
    assert.ok(threadBefore !== null);
    let x = 0;
    for (let i = 1; i < 1e10; i++) {
      x += Math.sqrt(i);
      if (i % 1_000_000 === 0 && ownCpuMs() - before >= 300) break;
    }
    assert.ok(x > 0 && ownCpuMs() - before >= 300, "this thread's own work counts");
  } finally {
    other.stop();
  }
});
