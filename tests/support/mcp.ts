/**
 * Helpers for MCP tests: server definitions for the fixtures, the example
 * server and `@modelcontextprotocol/server-everything`, and a Streamable
 * HTTP example server on 127.0.0.1.
 *
 * @module
 */

import { join } from "node:path";
import type { McpServerDef, McpToolRef } from "../../lib/config/mcp_ref.ts";
import { PASSED_ENV } from "../../tools/sandbox/child_env.ts";
import { ROOT } from "./cli.ts";
import { isRunning } from "./processes.ts";
import { PATIENCE_MS, waitUntil } from "./wait.ts";

/** The faulty fixture server in `mode` (see tests/fixtures/mcp/faulty_server.ts). */
export function faultyServer(mode: string, env: Record<string, string> = {}): McpServerDef {
  return {
    kind: "command",
    command: [
      Deno.execPath(),
      "run",
      "--quiet",
      "--allow-env",
      "--allow-write",
      join(ROOT, "tests/fixtures/mcp/faulty_server.ts"),
      mode,
    ],
    env,
    cwd: ROOT,
  };
}

/** Our example server on stdio. */
export function exampleServer(env: Record<string, string> = {}): McpServerDef {
  return {
    kind: "command",
    command: [Deno.execPath(), "run", "--quiet", join(ROOT, "examples/mcp_server.ts")],
    env,
    cwd: ROOT,
  };
}

/** A tool reference to `server` offering `allow`. */
export function mcpRef(
  server: McpServerDef,
  allow: string[],
  extra: Partial<McpToolRef> = {},
): McpToolRef {
  return { kind: "mcp", name: "mcp test", server, allow, prefix: "", cost_usd: 0, ...extra };
}

/**
 * The command that starts `@modelcontextprotocol/server-everything` (pinned in
 * deno.json) under this Deno on `transport` (see tests/fixtures/mcp/everything.ts).
 * Its permissions: the environment (it reads settings from it) and, over
 * HTTP, 127.0.0.1 only; `--frozen` keeps it to the versions in deno.lock.
 */
export function everythingCommand(transport: "stdio" | "streamableHttp"): string[] {
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    "--frozen",
    `--config=${join(ROOT, "deno.json")}`,
    "--allow-env",
    ...(transport === "stdio" ? [] : ["--allow-net=127.0.0.1"]),
    join(ROOT, "tests/fixtures/mcp/everything.ts"),
    transport,
  ];
}

/**
 * What a child `deno` started with a cleared environment (an MCP server gets
 * only HOME, PATH and a few more) needs from this one, when set: where Deno
 * keeps its cache (or it looks in another one) and the certificates to trust
 * (or a download through a TLS-inspecting proxy fails): the variables a
 * custom tool's process gets (`PASSED_ENV`) and `XDG_CACHE_HOME`.
 */
export function denoChildEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...PASSED_ENV, "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A started process serving Streamable HTTP, with its URL. */
export interface HttpServerProcess extends AsyncDisposable {
  url: string;
  child: Deno.ChildProcess;
}

/** Starts a command that prints a URL containing 127.0.0.1 once it listens; waits up to 30 s. */
export async function startHttpServer(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; urlPattern: RegExp; path: string },
): Promise<HttpServerProcess> {
  const child = new Deno.Command(command, {
    args,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const decoder = new TextDecoder();
  let seen = "";
  const found = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      seen += decoder.decode(chunk, { stream: true });
      const m = seen.match(options.urlPattern);
      if (m) return m[1];
    }
    return null;
  };
  const out = child.stdout.getReader();
  const err = child.stderr.getReader();
  const read = (r: ReadableStreamDefaultReader<Uint8Array>) =>
    new ReadableStream<Uint8Array>({
      async pull(c) {
        const { value, done } = await r.read();
        if (done) c.close();
        else c.enqueue(value);
      },
    });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const port = await Promise.race([
    found(read(out)),
    found(read(err)),
    new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), 30_000)),
  ]);
  clearTimeout(timer);
  const dispose = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    out.releaseLock();
    err.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    await child.status;
  };
  if (port === null) {
    await dispose();
    throw new Error(`server did not start: ${seen.slice(0, 500)}`);
  }
  return { url: `http://127.0.0.1:${port}${options.path}`, child, [Symbol.asyncDispose]: dispose };
}

/** Our example server over Streamable HTTP on a free port. */
export function startExampleHttpServer(): Promise<HttpServerProcess> {
  return startHttpServer(Deno.execPath(), [
    "run",
    "--quiet",
    "--allow-net=127.0.0.1",
    join(ROOT, "examples/mcp_server.ts"),
    "--http",
    "0",
  ], { urlPattern: /127\.0\.0\.1:(\d+)\/mcp/, path: "/mcp" });
}

/** Waits until `pid` is gone; false when it still runs after `limitMs` (default: the patience of wait.ts). */
export function waitGone(pid: number, limitMs = PATIENCE_MS): Promise<boolean> {
  return waitUntil(() => !isRunning(pid), limitMs);
}
