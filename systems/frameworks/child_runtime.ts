/**
 * The main loop of a framework's process: reads ragbench's messages from
 * stdin, runs each question through the adapter (many at once), and writes
 * the adapter's model requests, tool calls and answers to stdout.
 *
 * An adapter module imports this module first, so the guards below are in
 * place before the framework's modules are evaluated:
 * - `console.log`/`info`/`debug` write to stderr, and every protocol line
 *   starts on a fresh line with `LINE_PREFIX`: text a framework prints
 *   itself never breaks the protocol.
 * - An unhandled rejection (LlamaIndex turns a thrown error into one) is
 *   reported and does not end the process.
 * - The process ends when its stdin closes (ragbench closed it or died)
 *   and, from a watchdog thread that acts even while the main thread is
 *   busy, when its parent process is gone.
 *
 * Stopping a run (`cancel`): its signal is aborted, and every model request
 * it makes from then on is answered at once with a text reply and every tool
 * call with a "not run" text, so that any framework, including one that
 * cannot be cancelled, reaches its end. ragbench no longer listens to it.
 *
 * @module
 */

// deno-lint-ignore-file no-console -- it sends the framework's console output to stderr
import { Worker } from "node:worker_threads";
import type { ChatMessage } from "../../lib/llm/model.ts";
import { lineSplitter } from "../../tools/sandbox/line_splitter.ts";
import type { FrameworkAdapter, ModelReply } from "./adapter.ts";
import { LINE_PREFIX, type ToChild, type WireToolCall } from "./protocol.ts";

/** The text reply a stopped run's model requests get. */
export const STOPPED_REPLY = "[ragbench: the question was stopped]";
/** The result text a stopped run's tool calls get. */
export const STOPPED_TOOL = "Not run: the question was stopped.";

const encoder = new TextEncoder();

function write(message: Record<string, unknown>): void {
  // writeSync of one buffer: lines of concurrent runs never interleave.
  const bytes = encoder.encode(`\n${LINE_PREFIX}${JSON.stringify(message)}\n`);
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

function guardConsole(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.table = toStderr;
  console.dir = toStderr;
}

/** Ends the process when its parent is gone, from a thread of its own. */
function startParentWatch(): void {
  const source = `const parent = Deno.ppid;
setInterval(() => { if (Deno.ppid !== parent) Deno.kill(Deno.pid, "SIGKILL"); }, 200);`;
  const watch = new Worker(source, { eval: true });
  watch.unref();
}

interface Pending {
  kind: "model" | "tool";
  resolve(value: ModelReply | string): void;
}

interface LiveRun {
  controller: AbortController;
  pending: Map<number, Pending>;
  seq: number;
}

/**
 * Serves `adapter` on stdin/stdout until stdin closes. Called by an adapter
 * module when it is the main module.
 */
export async function serveAdapter(adapter: FrameworkAdapter): Promise<void> {
  const runs = new Map<number, LiveRun>();
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    write({ t: "warning", message: `unhandled rejection: ${describe(event.reason)}` });
  });
  startParentWatch();
  const start = (message: Extract<ToChild, { t: "run" }>) => {
    const live: LiveRun = { controller: new AbortController(), pending: new Map(), seq: 0 };
    runs.set(message.run, live);
    const ask = <T extends ModelReply | string>(
      kind: Pending["kind"],
      body: Record<string, unknown>,
      stopped: T,
    ): Promise<T> => {
      if (live.controller.signal.aborted) return Promise.resolve(stopped);
      const seq = ++live.seq;
      return new Promise<T>((resolve) => {
        live.pending.set(seq, { kind, resolve: resolve as (value: ModelReply | string) => void });
        write({ t: kind, run: message.run, seq, ...body });
      });
    };
    adapter.run({
      system: message.system,
      question: message.question,
      tools: message.tools,
      maxModelCalls: message.max_model_calls,
      signal: live.controller.signal,
      model: (messages: ChatMessage[], tools: string[]) =>
        ask<ModelReply>("model", { messages, tools }, { content: STOPPED_REPLY, tool_calls: [] }),
      tool: (call: WireToolCall) => ask<string>("tool", { call }, STOPPED_TOOL),
    }).then(
      (answer) => {
        if (runs.get(message.run) === live) write({ t: "done", run: message.run, answer });
      },
      (error) => {
        if (runs.get(message.run) === live) {
          write({ t: "failed", run: message.run, message: describe(error) });
        }
      },
    ).finally(() => {
      if (runs.get(message.run) === live) runs.delete(message.run);
    });
  };
  const cancel = (run: number) => {
    write({ t: "cancelled", run });
    const live = runs.get(run);
    if (!live) return;
    runs.delete(run);
    live.controller.abort(new DOMException("the question was stopped", "AbortError"));
    for (const pending of live.pending.values()) {
      pending.resolve(
        pending.kind === "model" ? { content: STOPPED_REPLY, tool_calls: [] } : STOPPED_TOOL,
      );
    }
    live.pending.clear();
  };
  const reply = (message: Extract<ToChild, { t: "model" | "tool" }>) => {
    const live = runs.get(message.run);
    const pending = live?.pending.get(message.seq);
    if (!live || !pending) return;
    live.pending.delete(message.seq);
    pending.resolve(
      message.t === "model"
        ? { content: message.content, tool_calls: message.tool_calls }
        : message.text,
    );
  };
  const splitter = lineSplitter(Infinity, (event) => {
    if (event.type !== "line" || event.text.trim() === "") return;
    const message = JSON.parse(event.text) as ToChild;
    if (message.t === "run") start(message);
    else if (message.t === "cancel") cancel(message.run);
    else if (message.t === "stats") write({ t: "stats", heap_used: Deno.memoryUsage().heapUsed });
    else reply(message);
  });
  write({ t: "ready", framework: adapter.framework });
  try {
    for await (const chunk of Deno.stdin.readable) splitter.push(chunk);
  } catch { /* stdin broke: as closed */ }
  Deno.exit(0);
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

guardConsole();
