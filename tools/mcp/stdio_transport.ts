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
 * Process tree: the server is started through the child registry
 * (`lib/util/child_registry.ts`) with its process group: in a session of its
 * own, so a terminal's Ctrl-C does not reach it, and what it starts (the
 * real server behind `sh -c`, `npx` or `uvx`) shares its process group.
 * Stopping the server kills that whole group, also when the server's own
 * process has exited and left children behind, and the registry kills it
 * when ragbench exits without closing the connection. Nothing waits on the
 * server's pipes without a bound: a process that left the group may hold
 * them open for ever, so after the kill the pipes get {@link PIPE_DRAIN_MS}
 * to reach their end and are then cancelled.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { defaultEnvironment } from "./default_env.ts";
import { spawnTracked, type TrackedChild } from "../../lib/util/child_registry.ts";
import { keepText, type KeptText, type PipeLines, pipeLines } from "../sandbox/child_pipes.ts";

/** The longest JSON-RPC line accepted from a server (characters). */
export const MAX_LINE_CHARS = 32 * 1024 * 1024;

/** How much of a server's stderr is kept for error messages. */
export const STDERR_KEEP_CHARS = 4096;

/** How long the server's pipes may stay open after its process group was killed (ms). */
export const PIPE_DRAIN_MS = 1000;

/** How to start a command server. */
export interface StdioServerParams {
  /** The executable and its arguments. */
  command: readonly string[];
  /** The server's own variables, `${VAR}` already filled in. */
  env: Readonly<Record<string, string>>;
  /** Working directory of the server. */
  cwd: string;
}

/** A started server: its process and pipes. */
interface Server {
  child: TrackedChild;
  stdin: WritableStreamDefaultWriter<Uint8Array>;
  stdout: PipeLines;
  stderr: KeptText;
  /** Settles once it has exited, its group is killed and its pipes are done or cancelled. */
  ended: Promise<void>;
}

/** Where the connection stands. Changed only by `start` and `#finish`. */
type State =
  | { s: "new" }
  /** The server runs, or is being stopped: messages flow until it has exited. */
  | { s: "open"; server: Server }
  /** Over (`onclose` has run); `server` is null when it was never started. */
  | { s: "closed"; server: Server | null };

/** A started server's stdio connection, with what it said on stderr. */
export class DenoStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #params: StdioServerParams;
  #state: State = { s: "new" };
  /** Set when the server sent something that is not JSON-RPC: nothing it sends counts after. */
  #breakReason: string | null = null;
  #closing: Promise<void> | null = null;
  readonly #grace = new Grace();

  constructor(params: StdioServerParams) {
    if (params.command.length === 0) throw new TypeError("an MCP command server needs a command");
    this.#params = params;
  }

  /** The first characters the server wrote to stderr. */
  get stderr(): string {
    return this.#server?.stderr.text() ?? "";
  }

  /** Why the connection broke, when the server sent something that is not JSON-RPC. */
  get breakReason(): string | null {
    return this.#breakReason;
  }

  /** How the server's process ended (`signal` is set when it had to be killed). */
  get status(): Promise<Deno.CommandStatus> {
    const server = this.#server;
    if (!server) return Promise.reject(new TypeError("the server was never started"));
    return server.child.status;
  }

  /** The server's process id, once started. */
  get pid(): number | null {
    return this.#server?.child.pid ?? null;
  }

  get #server(): Server | null {
    return this.#state.s === "new" ? null : this.#state.server;
  }

  /** Starts the server. @throws {Error} when the executable cannot be started. */
  start(): Promise<void> {
    if (this.#state.s !== "new") throw new Error("DenoStdioTransport already started");
    const [command, ...args] = this.#params.command;
    const child = spawnTracked(command, {
      args,
      cwd: this.#params.cwd,
      env: { ...defaultEnvironment(), ...this.#params.env },
      group: true,
    });
    const stdout = pipeLines(child.stdout, MAX_LINE_CHARS, "chars");
    const stderr = keepText(child.stderr, { chars: STDERR_KEEP_CHARS, keep: "head" });
    const reading = this.#read(stdout);
    const ended = child.exited.then(async () => {
      // The registry has killed what is left of its group; the pipes get a bounded wait.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all([reading, stderr.done]),
        new Promise((resolve) => timer = setTimeout(resolve, PIPE_DRAIN_MS)),
      ]);
      clearTimeout(timer);
      await stdout.cancel();
      await stderr.cancel();
      await Promise.all([reading, stderr.done]);
      this.#finish();
    });
    this.#state = {
      s: "open",
      server: { child, stdin: child.stdin.getWriter(), stdout, stderr, ended },
    };
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#state.s !== "open") throw new Error("Not connected");
    await this.#state.server.stdin.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  /**
   * Ends the server: closes its stdin, and kills its process group if it is
   * still running after `graceMs` (and whatever it left behind if it did
   * exit). Settles within `graceMs` + {@link PIPE_DRAIN_MS} or so, however
   * the server behaves. Later calls share the first one's work.
   */
  close(graceMs = 2000): Promise<void> {
    // A later call with a shorter grace (a failed start after the SDK's own close) cuts it short.
    this.#grace.shorten(graceMs);
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const state = this.#state;
    if (state.s !== "open") {
      this.#grace.clear();
      this.#finish();
      return;
    }
    const { child, stdin, ended } = state.server;
    child.stop();
    // A server stuck in a call does not read its input: closing it must not wait on a full pipe.
    void stdin.close().catch(() => {});
    await Promise.race([child.status, this.#grace.over]);
    this.#grace.clear();
    child.kill();
    await ended;
  }

  #finish(): void {
    if (this.#state.s === "closed") return;
    this.#state = { s: "closed", server: this.#server };
    this.onclose?.();
  }

  #break(reason: string): void {
    if (this.#breakReason === null) this.#breakReason = reason;
    this.onerror?.(new Error(reason));
    this.#server?.child.kill();
  }

  async #read(stdout: PipeLines): Promise<void> {
    for (let event = await stdout.next(); event !== null; event = await stdout.next()) {
      if (this.#breakReason !== null) continue; // drain until the process is gone
      if (event.type === "too_long") {
        this.#break(`it sent a message longer than ${MAX_LINE_CHARS} characters`);
      } else this.#line(event.text);
    }
  }

  #line(line: string): void {
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
}

/** The grace a closing server gets: ends after the shortest grace asked for so far. */
class Grace {
  #end = Infinity;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #over = Promise.withResolvers<void>();

  /** Settles when the grace is over. */
  get over(): Promise<void> {
    return this.#over.promise;
  }

  /** Ends the grace `ms` from now, unless it ends sooner already. */
  shorten(ms: number): void {
    const end = performance.now() + ms;
    if (end >= this.#end) return;
    this.#end = end;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#over.resolve(), ms);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

function preview(line: string): string {
  const short = line.length > 80 ? `${line.slice(0, 80)}…` : line;
  return JSON.stringify(short);
}
