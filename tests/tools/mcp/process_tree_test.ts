import assert from "node:assert/strict";
import { RagbenchError } from "../../../lib/errors.ts";
import { openMcpConnection } from "../../../tools/mcp/connection.ts";
import { faultyServer } from "../../support/mcp.ts";
import {
  killAllWith,
  type ProcessRow,
  waitForProcesses,
  waitNoneWith,
  wrappedUnkillableServer,
} from "../../support/process_tree.ts";

/** `promise`, or a failure saying `what` never happened (a hang guard far above any real wait). */
async function settles<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        timer = setTimeout(() => reject(new Error(`${what} never happened`)), 60_000)
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The wrapper shell and the real server among two processes. */
function split(rows: ProcessRow[]): { wrapper: ProcessRow; server: ProcessRow } {
  assert.equal(rows.length, 2, JSON.stringify(rows));
  const isWrapper = (r: ProcessRow) => /^\S*sh -c /.test(r.args);
  const wrapper = rows.find(isWrapper);
  const server = rows.find((r) => !isWrapper(r));
  assert.ok(wrapper && server, JSON.stringify(rows));
  return { wrapper, server };
}

Deno.test("closing a server started through a wrapper shell, stuck in a call and deaf to SIGTERM, ends the wrapper and the real server", async () => {
  const marker = `unkillable-${crypto.randomUUID()}`;
  try {
    const connection = await openMcpConnection(wrappedUnkillableServer("stuck", marker));
    const { wrapper, server } = split(await waitForProcesses(marker, 2));
    assert.equal(wrapper.pgid, wrapper.pid, "the wrapper leads a process group of its own");
    assert.equal(server.pgid, wrapper.pid, "the real server is in the wrapper's process group");
    const outcome = await connection.call("wait", {}, {
      signal: AbortSignal.timeout(300),
      timeoutMs: 300,
    });
    assert.equal(outcome.ok, false);
    await settles(connection.close(), "the close");
    assert.deepEqual(await waitNoneWith(marker, 5000), [], "no process of the server is left");
  } finally {
    await killAllWith(marker);
  }
});

Deno.test("a server whose wrapper exits leaves no child behind holding its pipes", async () => {
  const marker = `unkillable-${crypto.randomUUID()}`;
  try {
    const connection = await openMcpConnection(wrappedUnkillableServer("stuck", marker));
    const { wrapper } = split(await waitForProcesses(marker, 2));
    // The wrapper dies (a crash); the real server, deaf and stuck, would keep the pipes open.
    const call = connection.call("wait", {}, {
      signal: AbortSignal.timeout(30_000),
      timeoutMs: 30_000,
    });
    await new Promise((r) => setTimeout(r, 200));
    Deno.kill(wrapper.pid, "SIGKILL");
    const outcome = await settles(call, "the call's end");
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.kind, "unavailable");
    assert.deepEqual(await waitNoneWith(marker, 5000), [], "no process of the server is left");
    await settles(connection.close(), "the close");
  } finally {
    await killAllWith(marker);
  }
});

Deno.test("aborting the start-up signal during a handshake the server never answers stops the start at once and ends the server", async () => {
  const marker = `unkillable-${crypto.randomUUID()}`;
  try {
    const controller = new AbortController();
    const opening = openMcpConnection(wrappedUnkillableServer("slow_start", marker), {
      signal: controller.signal,
    });
    await waitForProcesses(marker, 2);
    controller.abort(new DOMException("cancelled by the user", "AbortError"));
    const error = await settles(opening.then(() => null, (e) => e), "the start's end");
    assert.ok(error instanceof RagbenchError, String(error));
    assert.match(error.message, /start-up was cancelled/);
    assert.doesNotMatch(error.message, /within 30 s/);
    assert.deepEqual(await waitNoneWith(marker, 5000), [], "no process of the server is left");
  } finally {
    await killAllWith(marker);
  }
});

Deno.test("after the start-up's signal is aborted (a first Ctrl-C), a server that died is still restarted for the questions in progress", async () => {
  const controller = new AbortController();
  const conn = await openMcpConnection(faultyServer("ok"), { signal: controller.signal });
  const call = { signal: new AbortController().signal, timeoutMs: 10_000 };
  try {
    const died = await conn.call("die", {}, call);
    assert.equal(!died.ok && died.kind, "unavailable");
    controller.abort(new DOMException("cancelled by the user", "AbortError"));
    const again = await conn.call("echo", { text: "back" }, call);
    assert.ok(again.ok, JSON.stringify(again));
  } finally {
    await conn.close();
  }
});
