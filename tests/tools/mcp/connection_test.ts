import assert from "node:assert/strict";
import { openMcpConnection } from "../../../tools/mcp/connection.ts";
import {
  exampleServer,
  faultyServer,
  startExampleHttpServer,
  waitGone,
} from "../../support/mcp.ts";
import { isRunning } from "../../support/processes.ts";

const call = { signal: new AbortController().signal, timeoutMs: 10_000 };

Deno.test("example server over stdio lists both tools and answers a call", async () => {
  const conn = await openMcpConnection(exampleServer());
  try {
    assert.deepEqual(conn.tools.map((t) => t.name).sort(), ["convert_units", "days_between"]);
    const days = conn.tools.find((t) => t.name === "days_between")!;
    assert.match(days.description, /calendar days/);
    assert.deepEqual(Object.keys(days.inputSchema.properties as object).sort(), ["end", "start"]);
    const out = await conn.call("days_between", { start: "1886-10-28", end: "1914-08-15" }, call);
    assert.ok(out.ok);
    assert.deepEqual(out.result.content, [{ type: "text", text: "10152" }]);
    const pid = conn.pid!;
    assert.ok(isRunning(pid));
    await conn.close();
    assert.ok(await waitGone(pid), "the server process is gone after close");
  } finally {
    await conn.close();
  }
});

Deno.test("example server over Streamable HTTP answers a call", async () => {
  await using server = await startExampleHttpServer();
  const conn = await openMcpConnection({ kind: "url", url: server.url, headers: {} });
  try {
    assert.deepEqual(conn.tools.map((t) => t.name).sort(), ["convert_units", "days_between"]);
    const out = await conn.call("convert_units", { value: 330, from: "m", to: "ft" }, call);
    assert.ok(out.ok);
    assert.deepEqual(out.result.content, [{ type: "text", text: "330 m = 1082.677165 ft" }]);
  } finally {
    await conn.close();
  }
});

Deno.test("a command server gets only its env and the SDK defaults, never ragbench's keys", async () => {
  Deno.env.set("RAGBENCH_TEST_SECRET_KEY", "sk-not-for-servers");
  const conn = await openMcpConnection(faultyServer("ok", { TOKEN: "${MCP_TEST_TOKEN}" }), {
    getEnv: (name) => (name === "MCP_TEST_TOKEN" ? "tok-123456" : undefined),
  });
  try {
    const out = await conn.call("env", {}, call);
    assert.ok(out.ok);
    const env = JSON.parse(String(out.result.content![0].text));
    const allowed = new Set(["TOKEN", "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]);
    for (const key of Object.keys(env)) assert.ok(allowed.has(key), `unexpected variable ${key}`);
    assert.equal(env.TOKEN, "tok-123456");
    assert.equal(env.RAGBENCH_TEST_SECRET_KEY, undefined);
    assert.equal(env.PATH, Deno.env.get("PATH"));
    assert.equal(conn.redact(`token tok-123456!`), "token [secret]!");
  } finally {
    Deno.env.delete("RAGBENCH_TEST_SECRET_KEY");
    await conn.close();
  }
});

Deno.test("a server that crashes at start fails with its name and stderr", async () => {
  const error = await openMcpConnection(faultyServer("crash")).then(
    () => assert.fail("expected an error"),
    (e: Error) => e,
  );
  assert.match(error.message, /^Cannot start MCP server "deno run .*faulty_server\.ts crash": /);
  assert.match(error.message, /Its stderr began:\n {2}faulty server: cannot open its database/);
});

Deno.test("a server that exits during the handshake fails before any call, secrets masked", async () => {
  const error = await openMcpConnection(
    faultyServer("exit-in-handshake", { KEY: "${K}" }),
    { getEnv: () => "hunter2-secret" },
  ).then(() => assert.fail("expected an error"), (e: Error) => e);
  assert.match(error.message, /it exited during the handshake/);
  assert.match(error.message, /giving up during the handshake/);
  assert.doesNotMatch(error.message, /hunter2/);
});

Deno.test("a server that never answers the handshake fails at the start-up limit", async () => {
  // The server never answers: only the start-up limit can end the wait, and the message says so.
  await assert.rejects(
    openMcpConnection(faultyServer("silent"), { startupTimeoutMs: 500 }),
    /^RagbenchError: Cannot start MCP server "deno run .*silent": it did not answer the handshake within 0\.5 s\.$/,
  );
});

Deno.test("an unset ${VAR} names the variable, not a value", async () => {
  await assert.rejects(
    openMcpConnection(faultyServer("ok", { KEY: "Bearer ${NOT_SET_ANYWHERE}" }), {
      getEnv: () => undefined,
    }),
    /KEY refers to \$\{NOT_SET_ANYWHERE\}, which is not set in the environment/,
  );
});

Deno.test("a missing executable is named", async () => {
  await assert.rejects(
    openMcpConnection({ kind: "command", command: ["no-such-mcp-server-xyz"], env: {}, cwd: "." }),
    /"no-such-mcp-server-xyz" was not found/,
  );
});

Deno.test("a server that dies mid-call: error result, one restart, then fail fast", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  try {
    const first = conn.pid!;
    const died = await conn.call("die", {}, call);
    assert.ok(!died.ok);
    assert.equal(died.kind, "unavailable");
    assert.match(died.detail ?? "", /dying mid-call/);
    const again = await conn.call("echo", { text: "back" }, call);
    assert.ok(again.ok, "restarted once");
    assert.notEqual(conn.pid, first);
    const diedAgain = await conn.call("die", {}, call);
    assert.ok(!diedAgain.ok);
    const last = conn.pid;
    const dead = await conn.call("echo", { text: "x" }, call);
    assert.ok(!dead.ok);
    assert.equal(dead.kind, "unavailable");
    assert.match(dead.message, /stopped twice/);
    assert.equal(conn.pid, last, "fails without starting the server again");
  } finally {
    await conn.close();
  }
});

Deno.test("every call in flight gets an error result when the server dies", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  try {
    const slow = { signal: new AbortController().signal, timeoutMs: 20_000 };
    const hanging = [conn.call("hang", {}, slow), conn.call("hang", {}, slow)];
    await new Promise((r) => setTimeout(r, 100));
    const died = await conn.call("die", {}, call);
    const results = [died, ...(await Promise.all(hanging))];
    for (const out of results) {
      assert.ok(!out.ok);
      assert.equal(out.kind, "unavailable");
    }
  } finally {
    await conn.close();
  }
});

Deno.test("a url server that fails calls mid-run gives error results with the status", async () => {
  let calls = 0;
  await using http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json().catch(() => null) as { id?: number; method?: string } | null;
    if (body?.id === undefined) return new Response(null, { status: 202 });
    const result = body.method === "initialize"
      ? {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "flaky", version: "0" },
      }
      : body.method === "tools/list"
      ? { tools: [{ name: "t", inputSchema: { type: "object" } }] }
      : null;
    if (result === null) {
      calls++;
      return new Response("overloaded", { status: 500 });
    }
    return Response.json({ jsonrpc: "2.0", id: body.id, result });
  });
  const conn = await openMcpConnection({
    kind: "url",
    url: `http://127.0.0.1:${http.addr.port}/mcp`,
    headers: {},
  });
  try {
    const out = await conn.call("t", {}, call);
    assert.ok(!out.ok);
    assert.equal(out.kind, "unavailable");
    assert.equal(out.message, "The MCP server answered HTTP 500.");
    assert.equal(calls, 1);
  } finally {
    await conn.close();
  }
});

Deno.test("a url server gets its ${VAR} headers; a refused one is told without the secret", async () => {
  const seen: string[] = [];
  await using http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const auth = req.headers.get("authorization") ?? "";
    seen.push(auth);
    if (auth !== "Bearer right-token-123") {
      return new Response(`bad token ${auth}`, { status: 401 });
    }
    const body = await req.json().catch(() => null) as { id?: number; method?: string } | null;
    if (body?.id === undefined) return new Response(null, { status: 202 });
    const result = body.method === "initialize"
      ? {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "a", version: "0" },
      }
      : { tools: [] };
    return Response.json({ jsonrpc: "2.0", id: body.id, result });
  });
  const url = `http://127.0.0.1:${http.addr.port}/mcp`;
  const headers = { Authorization: "Bearer ${MCP_TOKEN}" };
  const ok = await openMcpConnection({ kind: "url", url, headers }, {
    getEnv: () => "right-token-123",
  });
  await ok.close();
  assert.ok(seen.every((h) => h === "Bearer right-token-123"));
  const error = await openMcpConnection({ kind: "url", url, headers }, {
    getEnv: () => "wrong-token-456",
  }).then(() => assert.fail("expected an error"), (e: Error) => e);
  assert.match(error.message, /it answered HTTP 401 \(check its headers\)/);
  assert.doesNotMatch(error.message, /wrong-token/);
});

Deno.test("calls that arrive together after a death share the one restart", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  try {
    assert.ok(!(await conn.call("die", {}, call)).ok);
    const results = await Promise.all(
      [1, 2, 3].map((n) => conn.call("echo", { text: `${n}` }, call)),
    );
    assert.deepEqual(results.map((r) => r.ok), [true, true, true]);
  } finally {
    await conn.close();
  }
});

Deno.test("a line that is not JSON-RPC breaks the connection with a clear error", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  try {
    const out = await conn.call("garbage", {}, call);
    assert.ok(!out.ok);
    assert.equal(out.kind, "unavailable");
    assert.match(out.detail ?? "", /not a JSON-RPC message on stdout: "this is not json-rpc"/);
  } finally {
    await conn.close();
  }
});

Deno.test("a result of the wrong shape is an error result, and the connection carries on", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  try {
    const out = await conn.call("malformed", {}, call);
    assert.ok(!out.ok);
    assert.equal(out.kind, "execution");
    assert.equal(out.message, "The MCP server sent a reply that is not a valid tool result.");
    assert.ok((await conn.call("echo", { text: "x" }, call)).ok);
    const bad = await conn.call("badschema", {}, call);
    assert.ok(!bad.ok);
    assert.equal(bad.kind, "execution");
    assert.equal(
      bad.message,
      "The MCP server sent a result that does not match the tool's own output schema.",
    );
  } finally {
    await conn.close();
  }
});

Deno.test("a server's JSON-RPC error is its error, whatever its words or its code", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  try {
    const words = await conn.call("schema_words", {}, call);
    assert.ok(!words.ok);
    assert.equal(words.kind, "execution");
    assert.equal(
      words.message,
      "The MCP server reported an error: MCP error -32603: the structured content broke the output schema",
    );
    const status = await conn.call("rpc503", {}, call);
    assert.ok(!status.ok);
    assert.equal(status.kind, "execution");
    assert.equal(status.message, "The MCP server reported an error: MCP error 503: busy");
    assert.ok((await conn.call("echo", { text: "x" }, call)).ok);
  } finally {
    await conn.close();
  }
});

Deno.test("a hanging call with progress is cancelled on the server at the total limit", async () => {
  const log = await Deno.makeTempFile();
  const conn = await openMcpConnection(faultyServer("ok", { CANCEL_LOG: log }));
  try {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("tool timed out", "TimeoutError")),
      600,
    );
    const out = await conn.call("hang", {}, { signal: controller.signal, timeoutMs: 600 });
    clearTimeout(timer);
    assert.ok(!out.ok);
    assert.equal(out.kind, "timeout");
    let logged = "";
    for (let i = 0; i < 600 && logged === ""; i++) {
      await new Promise((r) => setTimeout(r, 50));
      logged = await Deno.readTextFile(log);
    }
    assert.match(logged, /"requestId":/, "the server received notifications/cancelled");
    const next = await conn.call("echo", { text: "still fine" }, call);
    assert.ok(next.ok);
  } finally {
    await conn.close();
    await Deno.remove(log);
  }
});

Deno.test("the SDK's own limit is total even when the server keeps sending progress", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  try {
    // Only the connection's backstop (timeoutMs + 1 s) can stop it in time: a limit that
    // progress extended would run until the guard, whose cancellation reads differently.
    const out = await conn.call("hang", {}, {
      signal: AbortSignal.timeout(30_000),
      timeoutMs: 300,
    });
    assert.ok(!out.ok);
    assert.equal(out.kind, "timeout");
    assert.equal(out.message, "The MCP tool call took too long.", "the backstop, not the guard");
  } finally {
    await conn.close();
  }
});

Deno.test("a url server answering 401, 404 or 500, or unreachable, fails with the status", async () => {
  for (const status of [401, 404, 500]) {
    await using http = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response("nope", { status }),
    );
    const error = await openMcpConnection({
      kind: "url",
      url: `http://127.0.0.1:${http.addr.port}/mcp`,
      headers: { Authorization: "Bearer ${TOK}" },
    }, { getEnv: () => "very-secret-token" }).then(
      () => assert.fail("expected an error"),
      (e: Error) => e,
    );
    assert.match(
      error.message,
      new RegExp(
        `^Cannot start MCP server "http://127\\.0\\.0\\.1:\\d+/mcp": it answered HTTP ${status}`,
      ),
    );
    assert.doesNotMatch(error.message, /very-secret-token/);
  }
  const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = free.addr.port;
  free.close();
  await assert.rejects(
    openMcpConnection({ kind: "url", url: `http://127.0.0.1:${port}/mcp`, headers: {} }),
    /it could not be reached/,
  );
});

Deno.test("a call after the connection closed fails at once and says so", async () => {
  const conn = await openMcpConnection(faultyServer("ok"));
  await conn.close();
  const out = await conn.call("echo", { text: "late" }, call);
  assert.ok(!out.ok);
  assert.equal(out.message, "The run is ending; the MCP server was closed.");
});
