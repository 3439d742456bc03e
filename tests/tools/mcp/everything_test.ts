import assert from "node:assert/strict";
import { openMcpConnection } from "../../../tools/mcp/connection.ts";
import { convertCallResult } from "../../../tools/mcp/result.ts";
import { unusedPort } from "../../support/fake_openai_server.ts";
import { DEFAULT_ENV_VARS } from "../../../tools/mcp/default_env.ts";
import { denoChildEnv, everythingCommand, startHttpServer } from "../../support/mcp.ts";

const call = { signal: new AbortController().signal, timeoutMs: 20_000 };

Deno.test("server-everything over stdio: tools listed, echo called", async () => {
  const conn = await openMcpConnection({
    kind: "command",
    command: everythingCommand("stdio"),
    env: denoChildEnv(),
    cwd: Deno.cwd(),
  });
  try {
    const names = conn.tools.map((t) => t.name);
    assert.ok(names.includes("echo"), names.join(", "));
    const out = await conn.call("echo", { message: "hello mcp" }, call);
    assert.ok(out.ok);
    assert.match(convertCallResult(out.result, 0, (t) => t).output, /hello mcp/);
    const image = await conn.call("get-tiny-image", {}, call);
    assert.ok(image.ok);
    const text = convertCallResult(image.result, 0, (t) => t).output;
    assert.match(text, /\[image content: image\/png, \d+ bytes, not shown\]/);
    assert.ok(text.length < 1000, "the image is described, not dumped");
    const env = await conn.call("get-env", {}, call);
    assert.ok(env.ok);
    const vars = JSON.parse(convertCallResult(env.result, 0, (t) => t).output);
    const allowed = new Set<string>([...DEFAULT_ENV_VARS, ...Object.keys(denoChildEnv())]);
    for (const key of Object.keys(vars)) assert.ok(allowed.has(key), `unexpected variable ${key}`);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException("t", "TimeoutError")), 500);
    const slow = await conn.call("trigger-long-running-operation", { duration: 30, steps: 30 }, {
      signal: controller.signal,
      timeoutMs: 500,
    });
    clearTimeout(timer);
    assert.ok(!slow.ok);
    // Ended by the question's signal at 0.5 s, not by the 30 s operation or the SDK's backstop.
    assert.equal(slow.message, "The MCP tool call took too long and was cancelled.");
    assert.ok((await conn.call("echo", { message: "after" }, call)).ok);
  } finally {
    await conn.close();
  }
});

Deno.test("server-everything over Streamable HTTP: tools listed, echo called", async () => {
  const port = unusedPort();
  const [command, ...args] = everythingCommand("streamableHttp");
  await using server = await startHttpServer(command, args, {
    env: { PORT: String(port) },
    urlPattern: /listening on port (\d+)/,
    path: "/mcp",
  });
  const conn = await openMcpConnection({ kind: "url", url: server.url, headers: {} });
  try {
    assert.ok(conn.tools.some((t) => t.name === "echo"));
    const out = await conn.call("echo", { message: "over http" }, call);
    assert.ok(out.ok);
    assert.match(convertCallResult(out.result, 0, (t) => t).output, /over http/);
  } finally {
    await conn.close();
  }
});
