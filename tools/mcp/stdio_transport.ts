/**
 * The stdio transport for MCP command servers: starts the server with
 * `Deno.Command` and speaks newline-delimited JSON-RPC over its stdin and
 * stdout. It implements the SDK's `Transport` interface, so the SDK's
 * `Client` drives it like its own `StdioClientTransport`.
 *
 * Why not the SDK's `StdioClientTransport`: under Deno it spawns through
 * `cross-spawn`, whose module reads `OSTYPE` and other variables when it is
 * loaded (so every run would need a broad `--allow-env`), it cannot clear the
 * environment of the child beyond its merge, and it gives no handle to kill
 * the child when ragbench exits. This one passes exactly the SDK's default
 * variables (`getDefaultEnvironment`: HOME, LOGNAME, PATH, SHELL, TERM, USER)
 * that ragbench may read, plus the server's own `env`, and nothing else.
 *
 * Safety: a line longer than {@link MAX_LINE_CHARS}, or one that is not a
 * JSON-RPC message, breaks the connection (every call in flight fails) rather
 * than being skipped, because the reply it carried can never arrive. The
 * server's stderr is always drained (a full pipe would block the server), and
 * its first {@link STDERR_KEEP_CHARS} characters are kept for error messages.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { defaultEnvironment } from "./default_env.ts";

/** The longest JSON-RPC line accepted from a server (characters). */
export const MAX_LINE_CHARS = 32 * 1024 * 1024;

/** How much of a server's stderr is kept for error messages. */
export const STDERR_KEEP_CHARS = 4096;

/**
 * Every server process still running. When ragbench exits without closing
 * its connections (a second Ctrl-C exits at once), they are killed on the
 * way out; if ragbench itself is killed, their stdin closes and a server that
 * stops on end of input (as ours and the SDK's do) exits too.
 */
const LIVE = new Set<Deno.ChildProcess>();
globalThis.addEventListener("unload", () => {
  for (const child of LIVE) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
});

/** How to start a command server. */
export interface StdioServerParams {
  /** The executable and its arguments. */
  command: readonly string[];
  /** The server's own variables, `${VAR}` already filled in. */
  env: Readonly<Record<string, string>>;
  /** Working directory of the server. */
  cwd: string;
}

/** A started server's stdio connection, with what it said on stderr. */
export class DenoStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  #params: StdioServerParams;
  #child: Deno.ChildProcess | null = null;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #stderr = "";
  #closed = false;
  #exited: Promise<void> = Promise.resolve();
  #breakReason: string | null = null;

  constructor(params: StdioServerParams) {
    if (params.command.length === 0) throw new TypeError("an MCP command server needs a command");
    this.#params = params;
  }

  /** The first characters the server wrote to stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Why the connection broke, when the server sent something that is not JSON-RPC. */
  get breakReason(): string | null {
    return this.#breakReason;
  }

  /** How the server's process ended (`signal` is set when it had to be killed). */
  get status(): Promise<Deno.CommandStatus> {
    if (!this.#child) return Promise.reject(new TypeError("the server was never started"));
    return this.#child.status;
  }

  /** The server's process id, once started. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** Starts the server. @throws {Error} when the executable cannot be started. */
  start(): Promise<void> {
    if (this.#child) throw new Error("DenoStdioTransport already started");
    const [command, ...args] = this.#params.command;
    const child = new Deno.Command(command, {
      args,
      cwd: this.#params.cwd,
      clearEnv: true,
      env: { ...defaultEnvironment(), ...this.#params.env },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    LIVE.add(child);
    this.#writer = child.stdin.getWriter();
    const out = this.#readStdout(child.stdout);
    const err = this.#readStderr(child.stderr);
    this.#exited = Promise.all([child.status, out, err]).then(() => {
      LIVE.delete(child);
      this.#finish();
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#closed) throw new Error("Not connected");
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  /** Ends the server: closes its stdin, then kills it if it is still running after `graceMs`. */
  async close(graceMs = 2000): Promise<void> {
    const child = this.#child;
    if (!child) {
      this.#finish();
      return;
    }
    await this.#writer?.close().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      this.#exited.then(() => false),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(true), graceMs)),
    ]);
    clearTimeout(timer);
    if (late) {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }
    await this.#exited;
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  #break(reason: string): void {
    if (this.#breakReason === null) this.#breakReason = reason;
    this.onerror?.(new Error(reason));
    try {
      this.#child?.kill("SIGKILL");
    } catch { /* already gone */ }
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      for await (const bytes of stream) {
        if (this.#breakReason !== null) continue; // drain until the process is gone
        const chunk = decoder.decode(bytes, { stream: true });
        let start = 0;
        let newline = chunk.indexOf("\n");
        while (newline !== -1) {
          this.#line(pending + chunk.slice(start, newline));
          pending = "";
          start = newline + 1;
          newline = chunk.indexOf("\n", start);
        }
        pending += chunk.slice(start);
        if (pending.length > MAX_LINE_CHARS) {
          this.#break(`it sent a message longer than ${MAX_LINE_CHARS} characters`);
          pending = "";
        }
      }
    } catch { /* the pipe broke: the process is going away */ }
  }

  #line(raw: string): void {
    if (this.#breakReason !== null) return;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.#break(`it wrote a line that is not a JSON-RPC message on stdout: ${preview(line)}`);
      return;
    }
    this.onmessage?.(message);
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const bytes of stream) {
        if (this.#stderr.length < STDERR_KEEP_CHARS) {
          this.#stderr = (this.#stderr + decoder.decode(bytes, { stream: true })).slice(
            0,
            STDERR_KEEP_CHARS,
          );
        }
      }
    } catch { /* the pipe broke */ }
  }
}

function preview(line: string): string {
  const short = line.length > 80 ? `${line.slice(0, 80)}…` : line;
  return JSON.stringify(short);
}
