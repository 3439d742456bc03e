/**
 * One subprocess running a custom tool, seen from the host: spawning it with
 * the least permissions, the request/reply protocol over its pipes, and the
 * limits a reply must respect.
 *
 * The host reads the process's stdout all the time, line by line in linear
 * time, and caps a line at `MAX_REPLY_BYTES`. A reply is accepted only when
 * it answers the request in progress and carries that request's nonce; any
 * other line — a tool writing to stdout, a reply too large, a reply out of
 * turn — ends the process, and the call in progress (if any) gets an error
 * result. The process is also given a V8 heap cap (`memory_mb`).
 *
 * @module
 */

import { fileURLToPath, pathToFileURL } from "../../lib/util/paths.ts";
import { z } from "zod";
import { RagbenchError } from "../../lib/errors.ts";
import { type Corpus, type SideEffects, TOOL_ERROR_KINDS } from "../../lib/types.ts";
import type { HostCall } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import { IDLE_STOP_NOTE, TOOL_HOST_COMMAND } from "./child_watchdog.ts";
import { lineSplitter } from "./line_splitter.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";
import { restoreProtoKeys, shieldProtoKeys } from "../../lib/util/proto_keys.ts";
import { ownSession } from "../../lib/util/process_group.ts";
import { noteChildExit } from "../../lib/run/child_exits.ts";

const MAIN = new URL("../../main.ts", import.meta.url);
const DENO_CONFIG = new URL("../../deno.json", import.meta.url);
const WATCHDOG = new URL("./child_watchdog.ts", import.meta.url);

/** The largest reply line the host accepts from a tool process, in bytes (8 MiB). */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;
/** The largest `cost_usd` one call may report, in US dollars. */
export const MAX_CALL_COST_USD = 1000;
/** A tool process's V8 heap cap when the config sets no `memory_mb`, in MB. */
export const DEFAULT_MEMORY_MB = 1024;
/** How long a tool's module may take to load and prepare when the config sets no `load_timeout_s`. */
export const DEFAULT_LOAD_TIMEOUT_S = 60;

/**
 * Every tool process still running. When ragbench exits without closing its
 * hosts (a second Ctrl-C exits at once), they are killed on the way out;
 * when it dies without running this (SIGKILL), each process's watchdog sees
 * its stdin close and ends it.
 */
const LIVE = new Set<Deno.ChildProcess>();
globalThis.addEventListener("unload", () => {
  for (const child of LIVE) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
});

/**
 * Registers a sandbox process (a custom tool's, or the code agent's) so that
 * it is killed if ragbench exits without closing it; it is forgotten when it
 * exits, and its exit is recorded for the runner (`lib/run/child_exits.ts`):
 * `stoppedByUs` says whether ragbench stopped it. Returns a promise that
 * settles when it has exited.
 */
export function trackProcess(
  process: Deno.ChildProcess,
  stoppedByUs: () => boolean,
): Promise<void> {
  LIVE.add(process);
  const forget = () => {
    LIVE.delete(process);
  };
  return process.status.then(() => {
    forget();
    noteChildExit(stoppedByUs());
  }, forget);
}

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
  /** V8 heap cap of each process, in MB (default `DEFAULT_MEMORY_MB`). */
  memoryMb?: number;
}

/** What the tool tells the model, read from its module. */
export interface CustomToolInfo {
  description: string;
  parameters: Record<string, unknown>;
}

/** What each process is given, and how long it may take to start. */
export interface ChildEnv {
  corpus: Corpus;
  now: string;
  /** Load and prepare limit, in ms (default `DEFAULT_LOAD_TIMEOUT_S`). */
  loadTimeoutMs?: number;
  /** Told once when loading has taken over a second: what it waits for, and how long it may. */
  progress?: (text: string) => void;
}

/** One running tool process. */
export interface Child {
  info: CustomToolInfo;
  readonly alive: boolean;
  /** Sends a message that has no reply. */
  send(message: HostMessage): void;
  /** Runs one call; never throws. */
  call(call: HostCall, signal: AbortSignal): Promise<RawToolResult>;
  /**
   * True once its watchdog stopped it for working while idle: a call sent
   * just then never started, and may be run again on a fresh process.
   */
  readonly stoppedIdle: boolean;
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
  cost_usd: z.number().nullable(),
  result_ends: z.array(z.int().nonnegative()).optional(),
});

/** How a request ended: its reply, or why there is none. */
type Reply =
  | { kind: "message"; message: SandboxMessage }
  | { kind: "stray" }
  | { kind: "too_big" }
  | { kind: "exited" };

/**
 * Spawns a tool process and waits until it has loaded the module and
 * prepared the tool. `onExit` runs once when a started process exits.
 *
 * @throws {RagbenchError} when the module cannot be loaded or is not a tool.
 */
export async function spawnChild(
  spec: CustomToolSpec,
  env: ChildEnv,
  onExit: () => void,
): Promise<Child> {
  const memoryMb = spec.memoryMb ?? DEFAULT_MEMORY_MB;
  const process = new Deno.Command(Deno.execPath(), {
    args: childArgs(spec),
    clearEnv: true,
    env: childEnv(spec.sideEffects, memoryMb),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // Its own session: a terminal's Ctrl-C reaches ragbench, not the tool in the middle of a call.
    ...ownSession(),
  }).spawn();
  let alive = true;
  let killed = false;
  const exited = trackProcess(process, () => killed).then(() => {
    alive = false;
  });
  const stdin = process.stdin.getWriter();
  const encoder = new TextEncoder();
  const stderr = collectTail(process.stderr);
  let writes = Promise.resolve();
  const send = (message: HostMessage) => {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    writes = writes.then(() => stdin.write(bytes)).catch(() => {});
  };
  const kill = async () => {
    alive = false; // at once: no call may be sent to it from now on
    killed = true;
    try {
      process.kill("SIGKILL");
    } catch { /* already gone */ }
    await stdin.close().catch(() => {});
    await exited;
    await stderr.done;
  };

  let waiting: { nonce: string; resolve(reply: Reply): void } | null = null;
  let fault: Reply | null = null;
  const settle = (reply: Reply) => {
    const w = waiting;
    waiting = null;
    w?.resolve(reply);
  };
  // Anything but the awaited reply ends the process: the protocol cannot be trusted after it.
  const breakWith = (reply: Reply) => {
    fault ??= reply;
    settle(reply);
    void kill();
  };
  const splitter = lineSplitter(MAX_REPLY_BYTES, (event) => {
    if (event.type === "too_long") return breakWith({ kind: "too_big" });
    if (event.text.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(event.text);
    } catch {
      return breakWith({ kind: "stray" });
    }
    const nonce = typeof message === "object" && message !== null &&
      (message as { nonce?: unknown }).nonce;
    if (waiting && nonce === waiting.nonce) {
      return settle({ kind: "message", message: message as SandboxMessage });
    }
    breakWith({ kind: "stray" });
  });
  void (async () => {
    try {
      for await (const chunk of process.stdout) splitter.push(chunk);
    } catch { /* the process is gone */ }
    fault ??= { kind: "exited" };
    settle(fault);
  })();
  /** Sends `message` with a fresh nonce and waits for the reply carrying it. */
  const request = (message: HostMessage & { nonce?: string }): Promise<Reply> => {
    if (fault) return Promise.resolve(fault);
    const nonce = crypto.randomUUID();
    return new Promise<Reply>((resolve) => {
      waiting = { nonce, resolve };
      send({ ...message, nonce } as HostMessage);
    });
  };
  let stoppedIdle = false;
  const lastWords = async () => {
    await Promise.race([exited.then(() => stderr.done), new Promise((r) => setTimeout(r, 1000))]);
    const text = stderr.text().trim();
    stoppedIdle = text.includes(IDLE_STOP_NOTE);
    if (/heap limit|out of memory/i.test(text)) {
      return `it ran out of memory (memory_mb is ${memoryMb})`;
    }
    return `its process exited: ${text.split("\n").slice(-3).join(" ") || "no output on stderr"}`;
  };

  const loadTimeoutMs = env.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_S * 1000;
  const limit = `${loadTimeoutMs / 1000} s`;
  const where = `"${spec.module}#${spec.exportName}"`;
  const notice = setTimeout(() => {
    env.progress?.(
      `Loading custom tool "${spec.name}" from ${where}: waiting for its module to load and prepare (gives up after ${limit}; set load_timeout_s on the tool to change that)…`,
    );
  }, 1000);
  const started = performance.now();
  const within = (reply: Promise<Reply>) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const left = Math.max(0, loadTimeoutMs - (performance.now() - started));
    return Promise.race([
      reply,
      new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), left)),
    ]).finally(() => clearTimeout(timer));
  };
  const fail = async (why: string): Promise<never> => {
    clearTimeout(notice);
    await kill();
    throw new RagbenchError(
      "config",
      `Cannot load custom tool "${spec.name}" from ${where}: ${why.replace(/\.$/, "")}.`,
    );
  };
  const hint = `; set load_timeout_s on the tool to allow longer`;
  const ready = await within(request({ type: "hello", nonce: "" }));
  if (ready === "timeout") return await fail(`it did not load within ${limit}${hint}`);
  if (ready.kind === "message" && ready.message.type === "failed") {
    return await fail(ready.message.message);
  }
  if (ready.kind !== "message" || ready.message.type !== "ready") {
    return await fail(ready.kind === "exited" ? await lastWords() : describeFault(ready));
  }
  const info = ready.message;
  const prepared = await within(
    request({ type: "init", corpus: env.corpus, now: env.now, prepare: [spec.name] }),
  );
  if (prepared === "timeout") return await fail(`it did not prepare within ${limit}${hint}`);
  if (prepared.kind !== "message" || prepared.message.type !== "prepared") {
    return await fail(prepared.kind === "exited" ? await lastWords() : describeFault(prepared));
  }
  clearTimeout(notice);
  void exited.then(onExit);

  let nextId = 1;
  let turn = Promise.resolve();
  const runCall = async (call: HostCall, signal: AbortSignal): Promise<RawToolResult> => {
    if (signal.aborted) return errorResult("timeout", "The tool call was stopped before it ran.");
    const id = nextId++;
    const onAbort = () => void kill();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const reply = await request({
        type: "call",
        id,
        tool: spec.name,
        args: call.args,
        options: call.options,
        questionKey: call.questionKey,
      });
      if (reply.kind === "message" && reply.message.type === "result" && reply.message.id === id) {
        return checkedResult(reply.message.result) ?? (await kill(), malformed());
      }
      if (signal.aborted) {
        return errorResult("timeout", "The tool call was stopped: it ran too long.");
      }
      await kill();
      if (reply.kind === "too_big") {
        return errorResult(
          "output_limit",
          `The tool's reply was larger than the ${
            MAX_REPLY_BYTES / 1024 / 1024
          } MiB a custom tool may send; return less.`,
          `its reply passed ${MAX_REPLY_BYTES} bytes`,
        );
      }
      if (reply.kind === "exited") {
        const why = await lastWords();
        if (why.startsWith("it ran out of memory")) {
          return errorResult(
            "execution",
            `The tool ran out of memory: a custom tool may use ${memoryMb} MB.`,
            why,
          );
        }
        return errorResult("execution", "The tool failed unexpectedly.", why);
      }
      return errorResult("execution", "The tool failed unexpectedly.", describeFault(reply));
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  };
  return {
    info: { description: spec.description ?? info.description, parameters: info.parameters },
    get alive() {
      return alive;
    },
    get stoppedIdle() {
      return stoppedIdle;
    },
    send,
    kill,
    call(call, signal) {
      const result = turn.then(() => runCall(call, signal));
      turn = result.then(() => {}, () => {});
      return result;
    },
  };
}

/** The reply's result when it is well-formed and its cost plausible; null otherwise. */
function checkedResult(raw: unknown): RawToolResult | null {
  // zod drops `__proto__` keys from the result's data; shield them through the parse.
  const parsed = resultSchema.safeParse(shieldProtoKeys(raw));
  if (!parsed.success) return null;
  const result = restoreProtoKeys(parsed.data) as RawToolResult;
  const cost = result.cost_usd;
  // A custom tool prices its own calls: an unknown (null) cost would let it slip past the run's
  // cost cap, which only a built-in's unpriced embedding may do (refused up front when capped).
  if (cost === null) {
    return errorResult(
      "execution",
      "The tool failed unexpectedly.",
      "it reported cost_usd null; report the call's cost in US dollars (0 when it cost nothing)",
    );
  }
  if (!Number.isFinite(cost) || cost < 0 || cost > MAX_CALL_COST_USD) {
    return errorResult(
      "execution",
      "The tool failed unexpectedly.",
      `it reported cost_usd ${cost}, which is not between 0 and ${MAX_CALL_COST_USD} (US dollars a call)`,
    );
  }
  return result;
}

function malformed(): RawToolResult {
  return errorResult(
    "execution",
    "The tool failed unexpectedly.",
    "its process sent a malformed result",
  );
}

function describeFault(reply: Reply): string {
  if (reply.kind === "too_big") return `its reply passed ${MAX_REPLY_BYTES} bytes`;
  return "its process wrote a line to stdout that is not its reply (a tool must not write to stdout)";
}

/**
 * The child's command line: under `deno run`, the least permission flags for
 * the tool's side effects, the watchdog preloaded first, then the module
 * preloaded under those flags, and the V8 heap cap. A compiled binary (whose
 * permissions are fixed when it is built) runs itself; the child imports the
 * module, then drops the permissions its side effects do not need (its heap
 * cap comes through `DENO_V8_FLAGS`).
 */
export function childArgs(spec: CustomToolSpec): string[] {
  const host = [
    TOOL_HOST_COMMAND,
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
    `--v8-flags=${v8Flags(spec.memoryMb ?? DEFAULT_MEMORY_MB)}`,
    `--preload=${fileURLToPath(WATCHDOG)}`,
    `--preload=${spec.module}`,
  ];
  if (spec.sideEffects === "filesystem") {
    flags.push(`--allow-read=${Deno.cwd()}`, `--allow-write=${Deno.cwd()}`);
  }
  if (spec.sideEffects === "network") flags.push("--allow-net");
  return ["run", ...flags, fileURLToPath(MAIN), ...host];
}

/** The cleared environment of a tool process: only what Deno needs, and only if readable here. */
export function childEnv(sideEffects: SideEffects, memoryMb?: number): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  if (memoryMb !== undefined && !isDenoExecutable(Deno.execPath())) {
    env.DENO_V8_FLAGS = v8Flags(memoryMb);
  }
  const names = sideEffects === "network" ? [...PASSED_ENV, ...PASSED_NETWORK_ENV] : PASSED_ENV;
  for (const variable of names) {
    if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") continue;
    const value = Deno.env.get(variable);
    if (value !== undefined) env[variable] = value;
  }
  return env;
}

function v8Flags(memoryMb: number): string {
  return `--max-old-space-size=${memoryMb}`;
}

/** True when `path` is the deno CLI (not a `deno compile`d binary). */
export function isDenoExecutable(path: string): boolean {
  const name = path.split(/[\\/]/).pop() ?? "";
  return /^deno(\.exe)?$/i.test(name);
}

/**
 * Keeps the last 4,000 characters of a stream; reading it costs time linear
 * in its length. `onTail` sees the kept text after each chunk.
 */
export function collectTail(
  stream: ReadableStream<Uint8Array>,
  onTail?: (tail: string) => void,
): { text(): string; done: Promise<void> } {
  let tail = "";
  const decoder = new TextDecoder();
  const done = (async () => {
    for await (const chunk of stream) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4000);
      onTail?.(tail);
    }
  })().catch(() => {});
  return { text: () => tail, done };
}
