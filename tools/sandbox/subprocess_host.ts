/**
 * Runs a custom tool in subprocesses: code that ragbench cannot bound (a
 * user's TypeScript) runs in a process that can be killed, so a call past
 * its timeout is stopped and its CPU reclaimed — which terminating a Worker
 * does not do on Deno 2.9 for a CPU-bound loop.
 *
 * Under `deno run`, each process starts with only the permission flags the
 * tool's side effects need and loads the tool's module with `--preload`, so
 * even the module's top-level code runs under those permissions (`none`: no
 * read, write, net, env, run or ffi); `--cached-only --no-remote` keep it
 * from fetching code at run time. The environment is cleared except for
 * Deno's cache and certificate settings (and proxy settings for network
 * tools) that ragbench itself was allowed to read.
 *
 * A question keeps one process for all its calls, so per-question state
 * works; processes are reused across questions, up to `maxProcesses` at
 * once. A timed-out or cancelled call kills its process; the question's next
 * call gets a fresh one.
 *
 * @module
 */

import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { RagbenchError } from "../../lib/errors.ts";
import { type Corpus, type SideEffects, TOOL_ERROR_KINDS } from "../../lib/types.ts";
import { TextLineStream } from "../../lib/util/text_lines.ts";
import type { HostCall, ToolHost } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";

const MAIN = new URL("../../main.ts", import.meta.url);
const DENO_CONFIG = new URL("../../deno.json", import.meta.url);

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

/** Variables passed to every tool process (Deno's cache and TLS settings), when set. */
export const PASSED_ENV = ["DENO_DIR", "DENO_CERT", "SSL_CERT_FILE", "SSL_CERT_DIR"];
/** Also passed to network tools. */
export const PASSED_NETWORK_ENV = [
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
];

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

interface ChildEnv {
  corpus: Corpus;
  now: string;
  loadTimeoutMs?: number;
}

/**
 * Starts the first process of a custom tool and reads its description and
 * schema.
 *
 * @throws {RagbenchError} when the module cannot be loaded or is not a tool.
 */
export async function startCustomTool(
  spec: CustomToolSpec,
  env: ChildEnv & { maxProcesses: number },
): Promise<CustomToolHost> {
  const idle: Child[] = [];
  const held = new Map<string, Child>();
  const waiters = new Set<() => void>();
  let live = 0;
  let closed = false;
  const wakeOne = () => {
    const wake = waiters.values().next().value;
    if (wake) {
      waiters.delete(wake);
      wake();
    }
  };
  const onExit = () => {
    live--;
    wakeOne();
  };
  const spawn = async (): Promise<Child> => {
    live++;
    try {
      return await spawnChild(spec, env, onExit);
    } catch (error) {
      live--;
      wakeOne();
      throw error;
    }
  };
  idle.push(await spawn());
  const info = idle[0].info;

  const waitForProcess = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        waiters.delete(wake);
        reject(signal.reason);
      };
      waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });

  const acquire = async (questionKey: string, signal: AbortSignal): Promise<Child | null> => {
    for (;;) {
      if (closed || signal.aborted) return null;
      const mine = held.get(questionKey);
      if (mine?.alive) return mine;
      held.delete(questionKey);
      let child = idle.pop();
      while (child && !child.alive) child = idle.pop();
      if (!child && live < env.maxProcesses) child = await spawn();
      if (child) {
        held.set(questionKey, child);
        return child;
      }
      try {
        await waitForProcess(signal);
      } catch {
        return null;
      }
    }
  };

  return {
    info,
    async call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
      let child: Child | null;
      try {
        child = await acquire(call.questionKey, signal);
      } catch (error) {
        return errorResult(
          "unavailable",
          "The tool could not be started.",
          error instanceof Error ? error.message : String(error),
        );
      }
      if (!child) {
        return closed
          ? errorResult("unavailable", "The run ended before the tool could run.")
          : errorResult("timeout", "The tool call was stopped while it waited to run.");
      }
      return await child.call(call, signal);
    },
    endQuestion(questionKey: string) {
      const child = held.get(questionKey);
      held.delete(questionKey);
      if (child?.alive && !closed) {
        child.send({ type: "end", questionKey });
        idle.push(child);
        wakeOne();
      }
    },
    async close() {
      closed = true;
      const all = [...idle, ...held.values()];
      idle.length = 0;
      held.clear();
      await Promise.all(all.map((c) => c.kill()));
      for (const wake of [...waiters]) wake();
      waiters.clear();
    },
  };
}

/** One subprocess running the tool. */
interface Child {
  info: CustomToolInfo;
  readonly alive: boolean;
  send(message: HostMessage): void;
  call(call: HostCall, signal: AbortSignal): Promise<RawToolResult>;
  kill(): Promise<void>;
}

const resultSchema = z.strictObject({
  output: z.string(),
  data: z.json().optional(),
  error: z.strictObject({
    kind: z.enum(TOOL_ERROR_KINDS),
    message: z.string(),
    detail: z.string().optional(),
  }).nullable(),
  cost_usd: z.number().nonnegative(),
});

async function spawnChild(spec: CustomToolSpec, env: ChildEnv, onExit: () => void): Promise<Child> {
  const command = new Deno.Command(Deno.execPath(), {
    args: childArgs(spec),
    clearEnv: true,
    env: childEnv(spec.sideEffects),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const process = command.spawn();
  LIVE.add(process);
  let alive = true;
  const exited = process.status.then(() => {
    LIVE.delete(process);
    alive = false;
  });
  const stdin = process.stdin.getWriter();
  const encoder = new TextEncoder();
  const lines = process.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TextLineStream(),
  )[Symbol.asyncIterator]();
  const stderr = collectTail(process.stderr);
  let writes = Promise.resolve();
  const send = (message: HostMessage) => {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    writes = writes.then(() => stdin.write(bytes)).catch(() => {});
  };
  const kill = async () => {
    alive = false; // at once: no call may be sent to it from now on
    try {
      process.kill("SIGKILL");
    } catch { /* already gone */ }
    await stdin.close().catch(() => {});
    await exited;
    await stderr.done;
  };
  /** The next protocol message, or null when the process closed stdout or broke the protocol. */
  const next = async (): Promise<SandboxMessage | null> => {
    const { value, done } = await lines.next().catch(() => ({ value: "", done: true }));
    if (done) return null;
    try {
      return JSON.parse(value) as SandboxMessage;
    } catch {
      return null;
    }
  };
  const lastWords = () =>
    stderr.text().trim().split("\n").slice(-3).join(" ") || "no output on stderr";

  const timeoutMs = env.loadTimeoutMs ?? 60_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const within = <T>(promise: Promise<T>) =>
    Promise.race([
      promise,
      new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), timeoutMs)),
    ]).finally(() => clearTimeout(timer));
  const fail = async (why: string): Promise<never> => {
    await kill();
    throw new RagbenchError(
      "config",
      `Cannot load custom tool "${spec.name}" from "${spec.module}#${spec.exportName}": ${
        why.replace(/\.$/, "")
      }.`,
    );
  };

  const ready = await within(next());
  if (ready === "timeout") return await fail(`it did not load within ${timeoutMs / 1000} s`);
  if (ready?.type === "failed") return await fail(ready.message);
  if (ready?.type !== "ready") return await fail(`its process exited: ${lastWords()}`);
  send({ type: "init", corpus: env.corpus, now: env.now, prepare: [spec.name] });
  const prepared = await within(next());
  if (prepared === "timeout") return await fail(`it did not prepare within ${timeoutMs / 1000} s`);
  if (prepared?.type !== "prepared") return await fail(`its process exited: ${lastWords()}`);
  void exited.then(onExit);

  let nextId = 1;
  return {
    info: { description: spec.description ?? ready.description, parameters: ready.parameters },
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
        if (message?.type === "result" && message.id === id) {
          const result = resultSchema.safeParse(message.result);
          if (result.success) return result.data as RawToolResult;
          await kill();
          return errorResult(
            "execution",
            "The tool failed unexpectedly.",
            "its process sent a malformed result",
          );
        }
        if (signal.aborted) {
          return errorResult("timeout", "The tool call was stopped: it ran too long.");
        }
        await kill();
        return errorResult(
          "execution",
          "The tool failed unexpectedly.",
          message === null
            ? `its process exited: ${lastWords()}`
            : "its process answered out of turn (did the tool write to stdout?)",
        );
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/**
 * The child's command line: under `deno run`, the least permission flags for
 * the tool's side effects, with the module preloaded under them. A compiled
 * binary (whose permissions are fixed when it is built) runs itself; the
 * child imports the module, then drops the permissions its side effects do
 * not need.
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
  const flags = [
    "--no-prompt",
    "--no-lock",
    "--cached-only",
    "--no-remote",
    `--config=${fileURLToPath(DENO_CONFIG)}`,
    `--preload=${spec.module}`,
  ];
  if (spec.sideEffects === "filesystem") {
    flags.push(`--allow-read=${Deno.cwd()}`, `--allow-write=${Deno.cwd()}`);
  }
  if (spec.sideEffects === "network") flags.push("--allow-net");
  return ["run", ...flags, fileURLToPath(MAIN), ...host];
}

/** The cleared environment of a tool process: only what Deno needs, and only if readable here. */
export function childEnv(sideEffects: SideEffects): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  const names = sideEffects === "network" ? [...PASSED_ENV, ...PASSED_NETWORK_ENV] : PASSED_ENV;
  for (const variable of names) {
    if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") continue;
    const value = Deno.env.get(variable);
    if (value !== undefined) env[variable] = value;
  }
  return env;
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
