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
 * Process tree: the server starts in a session of its own
 * (`lib/util/process_group.ts`), so a terminal's Ctrl-C does not reach it,
 * and what it starts (the real server behind `sh -c`, `npx` or `uvx`) shares
 * its process group. Stopping the server kills that whole group, also when
 * the server's own process has exited and left children behind. Nothing
 * waits on the server's pipes without a bound: a process that left the group
 * may hold them open for ever, so after the kill the pipes get
 * {@link PIPE_DRAIN_MS} to reach their end and are then cancelled.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { defaultEnvironment } from "./default_env.ts";
import { ownSession, signalTree } from "../../lib/util/process_group.ts";
import { noteChildExit } from "../../lib/util/child_exits.ts";

/** The longest JSON-RPC line accepted from a server (characters). */
export const MAX_LINE_CHARS = 32 * 1024 * 1024;

/** How much of a server's stderr is kept for error messages. */
export const STDERR_KEEP_CHARS = 4096;

/** How long the server's pipes may stay open after its process group was killed (ms). */
export const PIPE_DRAIN_MS = 1000;

/**
 * Every server process still running. When ragbench exits without closing
 * its connections (a second Ctrl-C exits at once), their process groups are
 * killed on the way out; if ragbench itself is killed (SIGKILL), their stdin
 * closes and a server that stops on end of input (as ours and the SDK's do)
 * exits too.
 */
const LIVE = new Set<Deno.ChildProcess>();
globalThis.addEventListener("unload", () => {
  for (const child of LIVE) signalTree(child, "SIGKILL");
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
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #stderr = "";
  #closed = false;
  /** Settles once the process has exited, its group is killed and its pipes are done or cancelled. */
  #exited: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;
  #graceEnd = Infinity;
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #graceOver = Promise.withResolvers<void>();
  /** Set before ragbench stops the server (a close, a broken connection). */
  #stopping = false;
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
      ...ownSession(),
    }).spawn();
    this.#child = child;
    LIVE.add(child);
    this.#writer = child.stdin.getWriter();
    const out = this.#readStdout(this.#reader(child.stdout));
    const err = this.#readStderr(this.#reader(child.stderr));
    this.#exited = child.status.then(async () => {
      noteChildExit(this.#stopping);
      // What it started is of no use without it, and may hold its pipes open.
      signalTree(child, "SIGKILL");
      LIVE.delete(child);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all([out, err]),
        new Promise((resolve) => timer = setTimeout(resolve, PIPE_DRAIN_MS)),
      ]);
      clearTimeout(timer);
      for (const reader of this.#readers) await reader.cancel().catch(() => {});
      await Promise.all([out, err]);
      this.#finish();
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#closed) throw new Error("Not connected");
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  /**
   * Ends the server: closes its stdin, and kills its process group if it is
   * still running after `graceMs` (and whatever it left behind if it did
   * exit). Settles within `graceMs` + {@link PIPE_DRAIN_MS} or so, however
   * the server behaves. Later calls share the first one's work.
   */
  close(graceMs = 2000): Promise<void> {
    // A later call with a shorter grace (a failed start after the SDK's own close) cuts it short.
    const end = performance.now() + graceMs;
    if (end < this.#graceEnd) {
      this.#graceEnd = end;
      clearTimeout(this.#graceTimer);
      this.#graceTimer = setTimeout(() => this.#graceOver.resolve(), graceMs);
    }
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const child = this.#child;
    if (!child) {
      clearTimeout(this.#graceTimer);
      this.#finish();
      return;
    }
    this.#stopping = true;
    // A server stuck in a call does not read its input: closing it must not wait on a full pipe.
    void this.#writer?.close().catch(() => {});
    await Promise.race([child.status, this.#graceOver.promise]);
    clearTimeout(this.#graceTimer);
    signalTree(child, "SIGKILL");
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
    this.#stopping = true;
    if (this.#child) signalTree(this.#child, "SIGKILL");
  }

  #reader(stream: ReadableStream<Uint8Array>): ReadableStreamDefaultReader<Uint8Array> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    return reader;
  }

  async #readStdout(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      for (;;) {
        const { value: bytes, done } = await reader.read();
        if (done) break;
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

  async #readStderr(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value: bytes, done } = await reader.read();
        if (done) break;
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
