/**
 * One subprocess running a custom tool, seen from the host: starting it
 * (`tool_command.ts`: the least permissions, the watchdog preloaded, a V8
 * heap cap of `memory_mb`), loading the tool in it within `load_timeout_s`,
 * and running its calls one at a time over its pipes (`tool_channel.ts`:
 * nonces, the reply cap; `tool_reply.ts`: what a reply may hold).
 *
 * A process that breaks the protocol, runs out of memory or exits is dead
 * for good: the call in progress (if any) gets an error result saying why,
 * and its pool starts a fresh process for the next call.
 *
 * @module
 */

import { RagbenchError } from "../../lib/errors.ts";
import type { Corpus } from "../../lib/types.ts";
import { spawnTracked, type TrackedChild } from "../../lib/util/child_registry.ts";
import type { HostCall } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import { childEnv } from "./child_env.ts";
import { keepText, type KeptText } from "./child_pipes.ts";
import { IDLE_STOP_NOTE } from "./child_watchdog.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";
import { ToolChannel } from "./tool_channel.ts";
import { childArgs, type CustomToolSpec, DEFAULT_MEMORY_MB } from "./tool_command.ts";
import {
  breachResult,
  checkedResult,
  describeBreach,
  malformed,
  type Reply,
} from "./tool_reply.ts";

/** How long a tool's module may take to load and prepare when the config sets no `load_timeout_s`. */
export const DEFAULT_LOAD_TIMEOUT_S = 60;
/** How much of a tool process's stderr is kept (its end) for error messages. */
const STDERR_TAIL_CHARS = 4000;

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
  const process = new ToolProcess(spec);
  const info = await loadTool(process, spec, env);
  void process.exited.then(onExit);
  process.info = { description: spec.description ?? info.description, parameters: info.parameters };
  return process;
}

/** The process and its protocol; alive until it exits or is killed. */
class ToolProcess implements Child {
  info: CustomToolInfo = { description: "", parameters: {} };
  readonly memoryMb: number;
  readonly #child: TrackedChild;
  readonly #channel: ToolChannel;
  readonly #stderr: KeptText;
  #stoppedIdle = false;
  #nextId = 1;
  /** The call in progress, if any: calls run one after another. */
  #turn: Promise<void> = Promise.resolve();
  readonly #tool: string;

  constructor(spec: CustomToolSpec) {
    this.memoryMb = spec.memoryMb ?? DEFAULT_MEMORY_MB;
    this.#tool = spec.name;
    // Its own session (the registry's): a terminal's Ctrl-C reaches ragbench, not the tool in
    // the middle of a call.
    this.#child = spawnTracked(Deno.execPath(), {
      args: childArgs(spec),
      env: childEnv(spec.sideEffects, this.memoryMb, spec.permissions?.env ?? []),
    });
    this.#stderr = keepText(this.#child.stderr, { chars: STDERR_TAIL_CHARS, keep: "tail" });
    // Anything but the awaited reply ends the process: the protocol cannot be trusted after it.
    this.#channel = new ToolChannel(this.#child, () => void this.kill());
  }

  /** Settles once the process has exited. */
  get exited(): Promise<void> {
    return this.#child.exited;
  }

  get alive(): boolean {
    // At once after a kill: no call may be sent to it from then on.
    return this.#child.running && !this.#child.stopping;
  }

  get stoppedIdle(): boolean {
    return this.#stoppedIdle;
  }

  send(message: HostMessage): void {
    this.#channel.send(message);
  }

  request(message: HostMessage): Promise<Reply> {
    return this.#channel.request(message);
  }

  async kill(): Promise<void> {
    this.#child.kill();
    await this.#channel.closeInput();
    await this.#child.exited;
    await this.#stderr.done;
  }

  call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
    const result = this.#turn.then(() => this.#run(call, signal));
    this.#turn = result.then(() => {}, () => {});
    return result;
  }

  /** Why the process ended, from its stderr (waiting up to a second for the last of it). */
  async lastWords(): Promise<string> {
    await Promise.race([
      this.#child.exited.then(() => this.#stderr.done),
      new Promise((r) => setTimeout(r, 1000)),
    ]);
    const text = this.#stderr.text().trim();
    this.#stoppedIdle = text.includes(IDLE_STOP_NOTE);
    if (/heap limit|out of memory/i.test(text)) {
      return `it ran out of memory (memory_mb is ${this.memoryMb})`;
    }
    return `its process exited: ${text.split("\n").slice(-3).join(" ") || "no output on stderr"}`;
  }

  async #run(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
    if (signal.aborted) return errorResult("timeout", "The tool call was stopped before it ran.");
    const id = this.#nextId++;
    const onAbort = () => void this.kill();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const reply = await this.request({
        type: "call",
        id,
        tool: this.#tool,
        args: call.args,
        options: call.options,
        questionKey: call.questionKey,
      });
      if (reply.kind === "message" && reply.message.type === "result" && reply.message.id === id) {
        return checkedResult(reply.message.result) ?? (await this.kill(), malformed());
      }
      if (signal.aborted) {
        return errorResult("timeout", "The tool call was stopped: it ran too long.");
      }
      await this.kill();
      if (reply.kind !== "exited") return breachResult(reply);
      const why = await this.lastWords();
      if (why.startsWith("it ran out of memory")) {
        return errorResult(
          "execution",
          `The tool ran out of memory: a custom tool may use ${this.memoryMb} MB.`,
          why,
        );
      }
      return errorResult("execution", "The tool failed unexpectedly.", why);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}

/**
 * Loads the tool in `process` (`hello` → `ready`, then `init` → `prepared`)
 * within the load limit, telling `env.progress` once if it takes over a
 * second; returns what the module says of the tool.
 *
 * @throws {RagbenchError} (killing the process) when it fails or is too slow.
 */
async function loadTool(
  process: ToolProcess,
  spec: CustomToolSpec,
  env: ChildEnv,
): Promise<Extract<SandboxMessage, { type: "ready" }>> {
  const loadTimeoutMs = env.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_S * 1000;
  const limit = `${loadTimeoutMs / 1000} s`;
  const where = `"${spec.module}#${spec.exportName}"`;
  const what = spec.label ?? `custom tool "${spec.name}" from ${where}`;
  const notice = setTimeout(() => {
    env.progress?.(
      `Loading ${what}: waiting for its module to load and prepare (gives up after ${limit}; set load_timeout_s on the tool to change that)…`,
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
    await process.kill();
    throw new RagbenchError(
      "config",
      `Cannot load ${what}: ${why.replace(/\.$/, "")}${cacheHint(spec, why)}.`,
    );
  };
  const failure = async (reply: Reply) =>
    reply.kind === "exited" ? await process.lastWords() : describeBreach(reply);
  const hint = `; set load_timeout_s on the tool to allow longer`;
  const ready = await within(process.request({ type: "hello", nonce: "" }));
  if (ready === "timeout") return await fail(`it did not load within ${limit}${hint}`);
  if (ready.kind === "message" && ready.message.type === "failed") {
    return await fail(ready.message.message);
  }
  if (ready.kind !== "message" || ready.message.type !== "ready") {
    return await fail(await failure(ready));
  }
  const prepared = await within(
    process.request({ type: "init", corpus: env.corpus, now: env.now, prepare: [spec.name] }),
  );
  if (prepared === "timeout") return await fail(`it did not prepare within ${limit}${hint}`);
  if (prepared.kind !== "message" || prepared.message.type !== "prepared") {
    return await fail(await failure(prepared));
  }
  clearTimeout(notice);
  return ready.message;
}

/** For a package not in Deno's cache or the lock file: how to cache it (runs never download). */
function cacheHint(spec: CustomToolSpec, why: string): string {
  if (!/^(npm|jsr):/.test(spec.module)) return "";
  if (
    !/cached-only|not found in (the )?cache|lockfile|lock file|could not find npm package/i.test(
      why,
    )
  ) {
    return "";
  }
  return `; runs never download: cache and lock it once with \`deno cache --frozen=false ${spec.module}\` in ragbench's folder (it is then in deno.lock)`;
}
