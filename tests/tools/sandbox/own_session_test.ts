import assert from "node:assert/strict";
import { childExitMark, interruptedSince } from "../../../lib/run/child_exits.ts";
import { createCodeSandbox } from "../../../tools/sandbox/code_host.ts";
import { PROBES, probeSession, startProbe, toolProcesses } from "../../support/probe_host.ts";

const never = new AbortController().signal;

/** Process group and session of `pid`, from `ps`. */
function groupAndSession(pid: number): { pgid: number; sid: number } {
  const { stdout } = new Deno.Command("ps", { args: ["-o", "pgid=,sid=", "-p", String(pid)] })
    .outputSync();
  const [pgid, sid] = new TextDecoder().decode(stdout).trim().split(/\s+/).map(Number);
  return { pgid, sid };
}

Deno.test("a code sandbox runs in a session of its own (a terminal's Ctrl-C does not reach it); its exits count only when ragbench did not cause them", async () => {
  const sandbox = createCodeSandbox({
    cpuMs: 300,
    wallMs: 60_000,
    memoryMb: 64,
    maxPrintChars: 100,
  });
  const call = () => Promise.resolve("");
  const mark = childExitMark();
  try {
    await sandbox.run({ program: "print(1);", tools: [], call, signal: never });
    const pid = sandbox.pid!;
    assert.deepEqual(groupAndSession(pid), { pgid: pid, sid: pid });
    assert.notEqual(groupAndSession(pid).sid, groupAndSession(Deno.pid).sid);

    // ragbench's own kill (a program past its time) is not counted …
    const spun = await sandbox.run({ program: "for (;;) {}", tools: [], call, signal: never });
    assert.equal(spun.status === "error" && spun.kind, "timeout");
    assert.equal(interruptedSince(mark, true), false);

    // … a stop signal from elsewhere is (it matters only once the run is cancelled).
    await sandbox.run({ program: "print(2);", tools: [], call, signal: never });
    Deno.kill(sandbox.pid!, "SIGINT");
    for (let i = 0; i < 200 && !interruptedSince(mark, true); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(interruptedSince(mark, true), true);
    assert.equal(interruptedSince(mark, false), false);
  } finally {
    await sandbox.close();
  }
});

Deno.test("a custom tool's process runs in a session of its own", async () => {
  const host = await startProbe("shout");
  try {
    const s = probeSession(host, "shout");
    const { result } = await s.execute("shout", JSON.stringify({ text: "hi" }), never);
    assert.equal(result.error, null, JSON.stringify(result));
    const [pid] = toolProcesses(`${PROBES} shout`);
    assert.ok(pid, "the tool's process is running");
    assert.deepEqual(groupAndSession(pid), { pgid: pid, sid: pid });
  } finally {
    await host.close();
  }
});
