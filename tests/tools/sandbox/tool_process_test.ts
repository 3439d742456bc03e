import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { RagbenchError } from "../../../lib/errors.ts";
import { childArgs } from "../../../tools/sandbox/tool_command.ts";
import { MAX_CALL_COST_USD } from "../../../tools/sandbox/tool_reply.ts";
import { ownCpuMs } from "../../support/cpu_time.ts";
import { probeSession, startProbe, toolProcesses } from "../../support/probe_host.ts";
import { cpuMsOf } from "../../support/processes.ts";
import { waitUntil } from "../../support/wait.ts";

const signal = new AbortController().signal;

Deno.test("custom tool: a well-formed result line it writes to stdout is an execution error, not its result", async () => {
  const host = await startProbe("forge");
  try {
    const s = probeSession(host, "forge");
    for (let i = 0; i < 2; i++) {
      const { result } = await s.execute("forge", "{}", signal);
      assert.notEqual(result.output, "forged");
      assert.equal(result.error?.kind, "execution", JSON.stringify(result));
      assert.equal(
        result.error?.detail,
        "its process wrote a line to stdout that is not its reply (a tool must not write to stdout)",
      );
    }
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a tool that closes stdout gets an execution error, and the next call a fresh process", async () => {
  const host = await startProbe("close_stdout");
  try {
    const s = probeSession(host, "close_stdout");
    for (let i = 0; i < 2; i++) {
      const { result } = await s.execute("close_stdout", "{}", signal);
      assert.equal(result.error?.kind, "execution", JSON.stringify(result));
      assert.match(result.error?.detail ?? "", /^its process exited: /);
    }
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a cost_usd over the cap or below zero is an execution error naming the problem", async () => {
  const host = await startProbe("costly");
  try {
    const s = probeSession(host, "costly");
    const call = async (cost: number) =>
      (await s.execute("costly", JSON.stringify({ cost }), signal)).result;
    assert.equal((await call(0.25)).cost_usd, 0.25);
    const absurd = await call(1e9);
    assert.equal(absurd.error?.kind, "execution");
    assert.equal(
      absurd.error?.detail,
      `it reported cost_usd 1000000000, which is not between 0 and ${MAX_CALL_COST_USD} (US dollars a call)`,
    );
    assert.equal(absurd.cost_usd, 0);
    const negative = await call(-1);
    assert.equal(negative.error?.kind, "execution");
    assert.equal(negative.error?.detail, 'tool "costly" returned a bad cost_usd');
    // An unknown cost is for built-ins only: a custom tool prices its own calls.
    const unpriced =
      (await s.execute("costly", JSON.stringify({ cost: 1, unpriced: true }), signal)).result;
    assert.equal(unpriced.error?.kind, "execution");
    assert.equal(
      unpriced.error?.detail,
      "it reported cost_usd null; report the call's cost in US dollars (0 when it cost nothing)",
    );
    assert.equal(unpriced.cost_usd, 0);
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a 50 MB reply is refused with output_limit reading little of it, and timers keep firing meanwhile", async () => {
  const host = await startProbe("big_reply");
  // A stall is CPU this process spends between two ticks (time it merely waits for a core
  // on a loaded machine is no stall of its own).
  let last = ownCpuMs();
  let longestStall = 0;
  const ticker = setInterval(() => {
    const now = ownCpuMs();
    longestStall = Math.max(longestStall, now - last);
    last = now;
  }, 10);
  try {
    const s = probeSession(host, "big_reply", "q", 20_000);
    const before = ownCpuMs();
    const { result } = await s.execute("big_reply", JSON.stringify({ bytes: 50_000_000 }), signal);
    const used = ownCpuMs() - before;
    assert.equal(result.error?.kind, "output_limit", JSON.stringify(result).slice(0, 300));
    assert.equal(
      result.error?.message,
      "The tool's reply was larger than the 8 MiB a custom tool may send; return less.",
    );
    assert.ok(used < 5000, `reading the reply used ${Math.round(used)} ms of CPU`);
    assert.ok(
      longestStall < 250,
      `the event loop stalled for ${Math.round(longestStall)} ms of CPU`,
    );
    // A large reply under the cap still arrives (and is cut to max_output_chars).
    const fine = await s.execute("big_reply", JSON.stringify({ bytes: 5_000_000 }), signal);
    assert.equal(fine.result.error, null);
    assert.equal(fine.result.truncated, true);
  } finally {
    clearInterval(ticker);
    await host.close();
  }
});

Deno.test("custom tool: a busy timer left by a call is cleared when the call returns: its process then idles", async () => {
  const host = await startProbe("leave_timer");
  try {
    const s = probeSession(host, "leave_timer");
    const [pid] = toolProcesses("probe_tools.ts leaveTimer");
    assert.ok(pid, "the tool's process runs");
    assert.equal((await s.execute("leave_timer", "{}", signal)).result.output, "left");
    await new Promise((r) => setTimeout(r, 200));
    const before = cpuMsOf(pid);
    await new Promise((r) => setTimeout(r, 1000));
    const used = cpuMsOf(pid) - before;
    assert.ok(used < 100, `the process used ${used} ms of CPU in 1 s after the call`);
    assert.ok(toolProcesses("probe_tools.ts leaveTimer").includes(pid), "and was kept");
    const again = await s.execute("leave_timer", "{}", signal);
    assert.equal(again.result.output, "left", JSON.stringify(again.result));
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: busy work left where timers are not tracked (node:timers) gets its process stopped", async () => {
  const host = await startProbe("leave_node_timer");
  try {
    const s = probeSession(host, "leave_node_timer");
    const marker = "probe_tools.ts leaveNodeTimer";
    const [pid] = toolProcesses(marker);
    assert.ok(pid, "the tool's process runs");
    assert.equal((await s.execute("leave_node_timer", "{}", signal)).result.output, "left");
    assert.ok(await waitUntil(() => !toolProcesses(marker).includes(pid)), "stopped");
    const again = await s.execute("leave_node_timer", "{}", signal);
    assert.equal(again.result.output, "left", JSON.stringify(again.result));
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a call that computes for longer than the idle check is not stopped", async () => {
  const host = await startProbe("crunch");
  try {
    const s = probeSession(host, "crunch", "q", 20_000);
    const { result } = await s.execute("crunch", JSON.stringify({ ms: 3000 }), signal);
    assert.equal(result.output, "crunched", JSON.stringify(result));
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: an idle process without leftover work is kept, with its question's state", async () => {
  const host = await startProbe("shout");
  try {
    const s = probeSession(host, "shout");
    const calls = async () =>
      ((await s.execute("shout", '{"text": "x"}', signal)).result.data as { calls: number }).calls;
    assert.equal(await calls(), 1);
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(await calls(), 2);
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: running out of its memory cap is an execution error naming the cap", async () => {
  const host = await startProbe("hog_memory", { memoryMb: 64 });
  try {
    const { result } = await probeSession(host, "hog_memory", "q", 30_000).execute(
      "hog_memory",
      "{}",
      signal,
    );
    assert.equal(result.error?.kind, "execution", JSON.stringify(result));
    assert.equal(result.error?.message, "The tool ran out of memory: a custom tool may use 64 MB.");
    assert.equal(result.error?.detail, "it ran out of memory (memory_mb is 64)");
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a module slow to load says what it waits for, then gives up at load_timeout_s", async () => {
  const lines: string[] = [];
  const module = fileURLToPath(new URL("../../fixtures/tools/slow_load.ts", import.meta.url));
  const error = await startProbe("slow", {
    module,
    loadTimeoutMs: 1500,
    progress: (t) => lines.push(t),
  }).then(() => null, (e) => e);
  assert.ok(error instanceof RagbenchError, String(error));
  assert.equal(
    error.message,
    `Cannot load custom tool "slow" from "${module}#slow": it did not load within 1.5 s; set load_timeout_s on the tool to allow longer.`,
  );
  assert.deepEqual(lines, [
    `Loading custom tool "slow" from "${module}#slow": waiting for its module to load and prepare (gives up after 1.5 s; set load_timeout_s on the tool to change that)…`,
  ]);
  assert.ok(await waitUntil(() => toolProcesses("slow_load.ts").length === 0));
});

Deno.test("a custom tool's process preloads the watchdog before the tool's module, under a heap cap", () => {
  const args = childArgs({
    name: "t",
    module: "/work/tools/t.ts",
    exportName: "t",
    sideEffects: "none",
    memoryMb: 256,
  });
  const preloads = args.filter((a) => a.startsWith("--preload="));
  assert.equal(preloads.length, 2);
  assert.match(preloads[0], /tools\/sandbox\/child_watchdog\.ts$/);
  assert.equal(preloads[1], "--preload=/work/tools/t.ts");
  assert.ok(args.includes("--v8-flags=--max-old-space-size=256"));
});
