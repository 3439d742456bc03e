/**
 * Runs a custom tool in subprocesses: code that ragbench cannot bound (a
 * user's TypeScript) runs in a process that can be killed, so a call past
 * its timeout is stopped and its CPU reclaimed — which terminating a Worker
 * does not do on Deno 2.9 for a CPU-bound loop.
 *
 * Each process starts with a cleared environment and only the permission
 * flags the tool's side effects need (plus reading the module's own folder
 * to load it, revoked before the first call; see `custom_tool_child.ts`).
 * A question keeps one process for all its calls, so per-question state
 * works; processes are reused across questions, up to `maxProcesses` at
 * once. A timed-out or cancelled call kills its process; the question's next
 * call starts a fresh one.
 *
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RagbenchError } from "../../lib/errors.ts";
import type { Corpus, SideEffects } from "../../lib/types.ts";
import { TextLineStream } from "../../lib/util/text_lines.ts";
import type { HostCall, ToolHost } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";

const MAIN = new URL("../../main.ts", import.meta.url);

/**
 * Every tool process still running. When ragbench exits without closing its
 * hosts (a second Ctrl-C exits at once), they are killed on the way out, so
 * no tool process outlives the run.
 */
const LIVE = new Set<Deno.ChildProcess>();
globalThis.addEventListener("unload", () => {
  for (const child of LIVE) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
});
const DENO_CONFIG = new URL("../../deno.json", import.meta.url);

/** Which custom tool to run, and how. */
export interface CustomToolSpec {
  /** The name the model calls it by (the config's `name`). */
  name: string;
  /** Absolute path of the module. */
  module: string;
  exportName: string;
  sideEffects: SideEffects;
  /** Overrides the module's own description. */
  description?: string;
}

/** What the tool tells the model, read from its module. */
export interface CustomToolInfo {
  description: string;
  parameters: Record<string, unknown>;
}

/** A started custom tool. */
export interface CustomToolHost extends ToolHost {
  info: CustomToolInfo;
}

/**
 * Starts the first process of a custom tool and reads its description and
 * schema.
 *
 * @throws {RagbenchError} when the module cannot be loaded or is not a tool.
 */
export async function startCustomTool(
  spec: CustomToolSpec,
  env: { corpus: Corpus; now: string; maxProcesses: number; loadTimeoutMs?: number },
): Promise<CustomToolHost> {
  const idle: Child[] = [];
  const busy = new Map<string, Child>();
  const waiting: Array<() => void> = [];
  let count = 0;
  let closed = false;
  const spawn = async (): Promise<Child> => {
    count++;
    try {
      return await spawnChild(spec, env);
    } catch (error) {
      count--;
      throw error;
    }
  };
  const first = await spawn();
  idle.push(first);

  const acquire = async (questionKey: string): Promise<Child> => {
    for (;;) {
      const held = busy.get(questionKey);
      if (held && held.alive) return held;
      if (held) busy.delete(questionKey);
      const child = idle.pop() ?? (count < env.maxProcesses ? await spawn() : undefined);
      if (child) {
        if (!child.alive) {
          count--;
          continue;
        }
        busy.set(questionKey, child);
        return child;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const release = (questionKey: string) => {
    const child = busy.get(questionKey);
    if (!child) return;
    busy.delete(questionKey);
    if (child.alive && !closed) {
      child.send({ type: "end", questionKey });
      idle.push(child);
    } else {
      count--;
    }
    waiting.shift()?.();
  };

  return {
    info: first.info,
    async call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
      if (closed) return errorResult("unavailable", "The run ended before the tool could run.");
      let child: Child;
      try {
        child = await acquire(call.questionKey);
      } catch (error) {
        return errorResult(
          "unavailable",
          "The tool could not be started.",
          error instanceof Error ? error.message : String(error),
        );
      }
      return await child.call(call, signal);
    },
    endQuestion: release,
    async close() {
      closed = true;
      const all = [...idle, ...busy.values()];
      idle.length = 0;
      busy.clear();
      await Promise.all(all.map((c) => c.kill()));
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/** One subprocess running the tool. */
interface Child {
  info: CustomToolInfo;
  alive: boolean;
  send(message: HostMessage): void;
  call(call: HostCall, signal: AbortSignal): Promise<RawToolResult>;
  kill(): Promise<void>;
}

async function spawnChild(
  spec: CustomToolSpec,
  env: { corpus: Corpus; now: string; loadTimeoutMs?: number },
): Promise<Child> {
  const command = new Deno.Command(Deno.execPath(), {
    args: childArgs(spec),
    clearEnv: true,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const process = command.spawn();
  LIVE.add(process);
  process.status.then(() => LIVE.delete(process));
  const stdin = process.stdin.getWriter();
  const encoder = new TextEncoder();
  const lines = process.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  )[Symbol.asyncIterator]();
  const stderr = collectTail(process.stderr);
  let alive = true;
  let writes = Promise.resolve();
  const send = (message: HostMessage) => {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    writes = writes.then(() => stdin.write(bytes)).catch(() => {});
  };
  const kill = async () => {
    if (alive) {
      alive = false;
      try {
        process.kill("SIGKILL");
      } catch { /* already gone */ }
    }
    await stdin.close().catch(() => {});
    await process.status;
    await stderr.done;
  };
  const next = async (): Promise<SandboxMessage | null> => {
    const { value, done } = await lines.next();
    return done ? null : JSON.parse(value) as SandboxMessage;
  };

  const timeoutMs = env.loadTimeoutMs ?? 60_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ready = await Promise.race([
    next(),
    new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), timeoutMs)),
  ]).finally(() => clearTimeout(timer));
  if (ready === "timeout" || ready === null || ready.type !== "ready") {
    await kill();
    const why = ready === "timeout"
      ? `it did not load within ${timeoutMs / 1000} s`
      : ready?.type === "failed"
      ? ready.message
      : `its process exited: ${
        stderr.text().trim().split("\n").slice(-3).join(" ") || "no output"
      }`;
    throw new RagbenchError(
      "config",
      `Cannot load custom tool "${spec.name}" from "${spec.module}#${spec.exportName}": ${why}.`,
    );
  }
  send({ type: "init", corpus: env.corpus, now: env.now });
  const info: CustomToolInfo = {
    description: spec.description ?? ready.description,
    parameters: ready.parameters,
  };

  let nextId = 1;
  return {
    info,
    get alive() {
      return alive;
    },
    send,
    kill,
    async call(call, signal) {
      if (signal.aborted) return errorResult("timeout", "The tool call was stopped before it ran.");
      const id = nextId++;
      send({
        type: "call",
        id,
        tool: spec.name,
        args: call.args,
        options: call.options,
        questionKey: call.questionKey,
      });
      const onAbort = () => void kill();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const message = await next();
        if (message?.type === "result" && message.id === id) return message.result;
        if (signal.aborted) {
          return errorResult("timeout", "The tool call was stopped: it ran too long.");
        }
        await kill();
        return errorResult(
          "execution",
          "The tool failed unexpectedly.",
          `its process exited: ${
            stderr.text().trim().split("\n").slice(-3).join(" ") || "no output"
          }`,
        );
      } catch (error) {
        await kill();
        return errorResult("execution", "The tool failed unexpectedly.", String(error));
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/**
 * The child's command line: under `deno run`, the least permission flags for
 * the tool's side effects; a compiled binary (whose permissions are fixed
 * when it is built) runs itself and the child narrows its own permissions.
 */
export function childArgs(spec: CustomToolSpec): string[] {
  const host = [
    "__tool-host",
    pathToFileURL(spec.module).href,
    spec.exportName,
    spec.sideEffects,
    spec.name,
  ];
  if (!isDenoExecutable(Deno.execPath())) return host;
  const moduleDir = dirname(spec.module);
  const read = [moduleDir];
  const flags = ["--no-prompt", "--no-lock", `--config=${fileURLToPath(DENO_CONFIG)}`];
  if (spec.sideEffects === "filesystem") {
    read.push(Deno.cwd());
    flags.push(`--allow-write=${Deno.cwd()}`);
  }
  if (spec.sideEffects === "network") flags.push("--allow-net");
  flags.push(`--allow-read=${read.join(",")}`);
  return ["run", ...flags, fileURLToPath(MAIN), ...host];
}

/** True when `path` is the deno CLI (not a `deno compile`d binary). */
export function isDenoExecutable(path: string): boolean {
  const name = path.split(/[\\/]/).pop() ?? "";
  return /^deno(\.exe)?$/i.test(name);
}

function collectTail(stream: ReadableStream<Uint8Array>): { text(): string; done: Promise<void> } {
  let tail = "";
  const decoder = new TextDecoder();
  const done = (async () => {
    for await (const chunk of stream) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4000);
    }
  })().catch(() => {});
  return { text: () => tail, done };
}
