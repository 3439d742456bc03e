/**
 * One framework's process (`host.ts` runs questions through it): its command
 * line and cleared environment, starting it through the child registry,
 * reading its protocol lines (strictly parsed, capped in length: a breach
 * kills it and fails the questions it was answering), and telling it to stop
 * a question (`cancel`; one it does not acknowledge in time means its thread
 * is stuck, and it is killed).
 *
 * @module
 */

import { fileURLToPath } from "../../lib/util/paths.ts";
import { RagbenchError } from "../../lib/errors.ts";
import { SystemFailedError } from "../system.ts";
import { spawnTracked } from "../../lib/util/child_registry.ts";
import { keepText, pipeLines } from "../../tools/sandbox/child_pipes.ts";
import { isDenoExecutable, PASSED_ENV } from "../../tools/sandbox/child_env.ts";
import type { ChatMessage } from "../../lib/llm/model.ts";
import type { ModelReply } from "./adapter.ts";
import type { FrameworkManifest } from "./registry.ts";
import type { LineEvent } from "../../tools/sandbox/line_splitter.ts";
import {
  type FromChild,
  fromChildSchema,
  LINE_PREFIX,
  MAX_LINE_BYTES,
  MAX_MESSAGE_CHARS,
  type ToChild,
  type WireToolCall,
} from "./protocol.ts";

const DENO_CONFIG = new URL("../../deno.json", import.meta.url);

/** How long a framework's process may take to load the framework, in ms. */
export const DEFAULT_LOAD_TIMEOUT_MS = 120_000;
/** How long a process may take to acknowledge a cancel before it is killed, in ms. */
export const CANCEL_ACK_MS = 5_000;
/** V8 heap cap of a framework's process, in MB. */
export const FRAMEWORK_MEMORY_MB = 2048;

/**
 * ragbench's side of one question: the framework's model requests and tool
 * calls. Called one at a time, in the order the framework makes them. A
 * rejection ends the question with that error.
 */
export interface RunHandlers {
  model(messages: ChatMessage[], tools: string[]): Promise<ModelReply>;
  tool(call: WireToolCall): Promise<string>;
}

/** How to start the process (tests shorten the limits). */
export interface HostOptions {
  loadTimeoutMs?: number;
  cancelAckMs?: number;
  /** Replaces the adapter's permission flags (tests). */
  permissionFlags?: readonly string[];
  /** More V8 flags for the process (scripts/bench_frameworks.ts sizes its young generation). */
  v8Flags?: readonly string[];
}

/** One question in a process. */
export interface LiveRun {
  handlers: RunHandlers;
  resolve(answer: string | null): void;
  reject(error: unknown): void;
  /** Requests are handled one at a time. */
  turn: Promise<void>;
  finished: boolean;
}

/** A framework's process. */
export interface FrameworkProcess {
  send(message: ToChild): void;
  /** Kills the process; `why` is what the questions it was answering are told. */
  kill(why?: string): Promise<void>;
  readonly ready: Promise<void>;
  readonly alive: boolean;
  /** Resolves once the process has ended (killed, exited or broken) and its questions have failed. */
  readonly gone: Promise<void>;
  runs: Map<number, LiveRun>;
  /** Waiting for the answer to `stats`. */
  stats: Array<(heapUsed: number) => void>;
  /** Cancels not yet acknowledged, by run: each resolves on the ack, or when the process is killed. */
  acks: Map<number, { done: Promise<void>; ack(): void }>;
}

/** The `deno run` arguments of a framework's process. */
export function frameworkArgs(manifest: FrameworkManifest, options: HostOptions = {}): string[] {
  const flags = options.permissionFlags ?? manifest.permissions.map((p) => p.flag);
  return [
    "run",
    "--no-prompt",
    "--cached-only",
    "--frozen",
    `--config=${fileURLToPath(DENO_CONFIG)}`,
    `--v8-flags=${
      [`--max-old-space-size=${FRAMEWORK_MEMORY_MB}`, ...(options.v8Flags ?? [])].join(",")
    }`,
    ...flags,
    fileURLToPath(manifest.adapter),
  ];
}

/** The cleared environment of a framework's process: Deno's own settings and the manifest's. */
export function frameworkEnv(manifest: FrameworkManifest): Record<string, string> {
  const env: Record<string, string> = {
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
    ...manifest.env,
  };
  for (const variable of PASSED_ENV) {
    if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") continue;
    const value = Deno.env.get(variable);
    if (value !== undefined) env[variable] = value;
  }
  return env;
}

/** Tells the process to stop run `id`; kills it when it does not answer in time. */
export function cancel(proc: FrameworkProcess, id: number, ackMs: number): void {
  if (!proc.alive || proc.acks.has(id)) return;
  let ack = () => {};
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      void proc.kill(
        `it did not answer a cancel within ${
          ackMs / 1000
        } s (its thread is stuck), so it was killed`,
      );
      resolve();
    }, ackMs);
    ack = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  proc.acks.set(id, { done, ack });
  void done.then(() => proc.acks.delete(id));
  proc.send({ t: "cancel", run: id });
}

/** Starts `manifest`'s process (or a dead one that fails every use, from a compiled binary). */
export function spawnFramework(
  manifest: FrameworkManifest,
  options: HostOptions,
): FrameworkProcess {
  const name = manifest.type;
  if (!isDenoExecutable(Deno.execPath())) {
    const error = new RagbenchError(
      "config",
      `Cannot run the ${name} system from a compiled binary: frameworks run in \`deno run\` processes; run ragbench with deno (deno task ragbench).`,
    );
    return deadChild(error);
  }
  // In a session of its own, killed if ragbench exits (lib/util/child_registry.ts).
  const process = spawnTracked(Deno.execPath(), {
    args: frameworkArgs(manifest, options),
    env: frameworkEnv(manifest),
  });
  let alive = true;
  let fault: string | null = null;
  const stderr = keepText(process.stderr, { chars: 4000, keep: "tail" });
  const lines = pipeLines(process.stdout, MAX_LINE_BYTES, "bytes");
  const stdin = process.stdin.getWriter();
  const encoder = new TextEncoder();
  let writes = Promise.resolve();
  const runs = new Map<number, LiveRun>();
  const acks: FrameworkProcess["acks"] = new Map();
  const stats: FrameworkProcess["stats"] = [];
  const kill = async (why?: string) => {
    if (why !== undefined) fault ??= why;
    alive = false;
    for (const pending of acks.values()) pending.ack();
    process.kill();
    await stdin.close().catch(() => {});
    await lines.cancel();
    await process.exited;
    await Promise.race([stderr.done, new Promise((r) => setTimeout(r, 500))]);
    await stderr.cancel();
  };
  const lastWords = () => {
    const text = stderr.text().trim();
    if (/--cached-only|not found in (the )?cache|Failed loading/i.test(text)) {
      return `${
        manifest.packages.join(", ")
      } not in Deno's cache (runs never download): run \`deno task cache:frameworks\` once`;
    }
    if (/heap limit|out of memory/i.test(text)) {
      return `it ran out of memory (${FRAMEWORK_MEMORY_MB} MB)`;
    }
    const tail = text.split("\n").slice(-4).join(" | ");
    return tail === "" ? "no output on stderr" : cut(tail);
  };
  const failAll = (why: string) => {
    for (const waiting of stats.splice(0)) waiting(Number.NaN);
    for (const run of runs.values()) {
      run.reject(new SystemFailedError(`the ${name} process failed: ${why}`));
    }
    runs.clear();
  };
  const breakWith = (why: string) => {
    fault ??= why;
    failAll(why);
    void kill();
  };
  let onReady: () => void = () => {};
  let onNotReady: (error: unknown) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    onNotReady = reject;
  });
  ready.catch(() => {});
  const loadMs = options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
  const loadTimer = setTimeout(() => {
    onNotReady(
      new RagbenchError(
        "config",
        `Cannot start the ${name} system: its framework did not load within ${loadMs / 1000} s.`,
      ),
    );
    breakWith("it did not load in time");
  }, loadMs);
  const send = (message: ToChild) => {
    if (!alive) return;
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    writes = writes.then(() => stdin.write(bytes)).catch(() => {});
  };
  const handle = (message: FromChild) => {
    switch (message.t) {
      case "ready":
        clearTimeout(loadTimer);
        onReady();
        return;
      case "warning":
        return;
      case "stats":
        return stats.shift()?.(message.heap_used);
      case "cancelled":
        return acks.get(message.run)?.ack();
      case "done":
        return runs.get(message.run)?.resolve(message.answer);
      case "failed":
        return runs.get(message.run)?.reject(
          new SystemFailedError(`${name} failed: ${cut(message.message)}`),
        );
      case "model":
      case "tool": {
        const run = runs.get(message.run);
        if (!run) return; // a stopped run: the child answers it itself
        run.turn = run.turn.then(async () => {
          if (run.finished) return;
          try {
            if (message.t === "model") {
              const reply = await run.handlers.model(message.messages, message.tools);
              if (!run.finished) {
                send({ t: "model", run: message.run, seq: message.seq, ...reply });
              }
            } else {
              const text = await run.handlers.tool(message.call);
              if (!run.finished) send({ t: "tool", run: message.run, seq: message.seq, text });
            }
          } catch (error) {
            run.reject(error);
            cancel(child, message.run, options.cancelAckMs ?? CANCEL_ACK_MS);
          }
        });
        return;
      }
    }
  };
  const onLine = (event: LineEvent) => {
    if (event.type === "too_long") {
      return breakWith(`it wrote a line over ${MAX_LINE_BYTES} bytes`);
    }
    if (!event.text.startsWith(LINE_PREFIX)) return; // the framework's own output
    let parsed;
    try {
      parsed = fromChildSchema.safeParse(JSON.parse(event.text.slice(LINE_PREFIX.length)));
    } catch {
      return breakWith("it wrote a protocol line that is not JSON");
    }
    if (!parsed.success) {
      return breakWith(
        `it wrote a malformed protocol line (${cut(parsed.error.issues[0]?.message ?? "")})`,
      );
    }
    handle(parsed.data);
  };
  const gone = (async () => {
    for (let event = await lines.next(); event !== null; event = await lines.next()) {
      onLine(event);
    }
    await Promise.race([process.exited, new Promise((r) => setTimeout(r, 1000))]);
    await Promise.race([stderr.done, new Promise((r) => setTimeout(r, 500))]);
    clearTimeout(loadTimer);
    const why = fault ??
      (process.stopping ? "it was stopped" : `its process exited: ${lastWords()}`);
    onNotReady(new RagbenchError("config", `Cannot start the ${name} system: ${why}.`));
    alive = false;
    failAll(why);
  })();
  const child: FrameworkProcess = {
    send,
    kill,
    ready,
    gone,
    get alive() {
      return alive;
    },
    runs,
    acks,
    stats,
  };
  return child;
}

/** A child that never started: every use fails with `error`. */
function deadChild(error: Error): FrameworkProcess {
  const ready = Promise.reject(error);
  ready.catch(() => {});
  return {
    send() {},
    kill: () => Promise.resolve(),
    ready,
    alive: false,
    gone: Promise.resolve(),
    runs: new Map(),
    acks: new Map(),
    stats: [],
  };
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}
