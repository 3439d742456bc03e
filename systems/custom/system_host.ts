/**
 * Runs a custom system's code in processes of the custom-tool sandbox
 * (`tools/sandbox/`): the same command line (`tool_command.ts`: `deno run`
 * with only the permissions of its `side_effects`, `--cached-only
 * --no-remote`, the watchdog and the module preloaded, a V8 heap cap), the
 * same cleared environment (`child_env.ts`), the same nonce-checked channel
 * over its pipes (`tool_channel.ts`, whose `ask` lines carry the system's
 * model, tool and retrieval calls), started through the child registry (its
 * own session, killed when ragbench exits).
 *
 * A question holds one process from start to end; processes are reused by
 * later questions. A question that is stopped (its timeout, Ctrl-C) kills
 * its process, and so does a process that breaks the protocol or dies: the
 * question fails saying why, and the next one gets a fresh process.
 *
 * @module
 */

import { RagbenchError } from "../../lib/errors.ts";
import { spawnTracked, type TrackedChild } from "../../lib/util/child_registry.ts";
import type { SideEffects } from "../../lib/types.ts";
import { childEnv } from "../../tools/sandbox/child_env.ts";
import { keepText, type KeptText } from "../../tools/sandbox/child_pipes.ts";
import type { SystemHostMessage } from "../../tools/sandbox/protocol.ts";
import { ToolChannel } from "../../tools/sandbox/tool_channel.ts";
import { childArgs, DEFAULT_MEMORY_MB } from "../../tools/sandbox/tool_command.ts";
import { describeBreach, type Reply } from "../../tools/sandbox/tool_reply.ts";
import { SystemFailedError } from "../system.ts";
import { AskRefused } from "./ask_refused.ts";
import { type Ask, askSchema, replySchema, type SystemReply } from "./system_messages.ts";

/** How long a system's module may take to load when the config sets no `load_timeout_s`, in s. */
export const DEFAULT_LOAD_TIMEOUT_S = 60;

/** Which custom system to run. */
export interface CustomSystemSpec {
  /** The system's name in the config (for messages). */
  name: string;
  /** Absolute path of the module. */
  module: string;
  exportName: string;
  sideEffects: SideEffects;
  memoryMb?: number;
  loadTimeoutMs?: number;
}

/** One question for the system. */
export type RunRequest = Omit<Extract<SystemHostMessage, { type: "run" }>, "type" | "nonce">;

/** What the system answered. */
export interface SystemAnswer {
  answer: string;
  cited: string[];
}

/**
 * Serves one `ask` of a run; resolves with the value the system gets, or
 * rejects with an Error whose message the system's call rejects with.
 */
export type AskHandler = (ask: Ask) => Promise<unknown>;

/** A custom system's processes. */
export interface SystemHost {
  /** Starts a first process and resolves once its module loaded. */
  ready(): Promise<void>;
  /**
   * Runs one question. Rejects with a `SystemFailedError` when the system
   * fails (throws, returns garbage, breaks the protocol, its process dies),
   * with what `onAsk`'s caller failed with, or with `signal.reason` when
   * `signal` aborts (its process is then killed).
   */
  run(request: RunRequest, onAsk: AskHandler, signal: AbortSignal): Promise<SystemAnswer>;
  close(): Promise<void>;
}

/** A host for `spec`; no process is started until `ready` or `run`. */
export function createSystemHost(spec: CustomSystemSpec): SystemHost {
  const idle: SystemProcess[] = [];
  const busy = new Set<SystemProcess>();
  let first: Promise<SystemProcess> | null = null;
  let closed = false;
  const start = async (): Promise<SystemProcess> => {
    const process = new SystemProcess(spec);
    busy.add(process);
    try {
      await process.load(spec.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_S * 1000);
    } finally {
      busy.delete(process);
    }
    return process;
  };
  const ready = () => {
    first ??= start().then((p) => {
      idle.push(p);
      return p;
    });
    return first.then(() => {});
  };
  return {
    ready,
    async run(request, onAsk, signal) {
      signal.throwIfAborted();
      if (closed) throw new SystemFailedError(`custom system "${spec.name}" was closed`);
      await ready();
      let process = idle.pop();
      while (process && !process.alive) process = idle.pop();
      process ??= await start();
      busy.add(process);
      try {
        return await process.run(request, onAsk, signal);
      } finally {
        busy.delete(process);
        if (process.alive && !closed) idle.push(process);
      }
    },
    async close() {
      closed = true;
      const all = [...idle, ...busy];
      idle.length = 0;
      await Promise.all(all.map((p) => p.kill()));
    },
  };
}

/** One process of a custom system. */
class SystemProcess {
  readonly #spec: CustomSystemSpec;
  readonly #child: TrackedChild;
  readonly #channel: ToolChannel;
  readonly #stderr: KeptText;
  /** The run in progress hears the asks. */
  #onAsk: ((message: Record<string, unknown>) => void) | null = null;

  constructor(spec: CustomSystemSpec) {
    this.#spec = spec;
    this.#child = spawnTracked(Deno.execPath(), {
      args: childArgs({ ...spec, system: true }),
      env: childEnv(spec.sideEffects, spec.memoryMb ?? DEFAULT_MEMORY_MB),
    });
    this.#stderr = keepText(this.#child.stderr, { chars: 4000, keep: "tail" });
    this.#channel = new ToolChannel(
      this.#child,
      () => void this.kill(),
      (message) => this.#onAsk?.(message),
    );
  }

  get alive(): boolean {
    return this.#child.running && !this.#child.stopping;
  }

  async kill(): Promise<void> {
    this.#child.kill();
    await this.#channel.closeInput();
    await this.#child.exited;
    await this.#stderr.done;
  }

  /** Loads the module within `limitMs`; kills the process and throws when it cannot. */
  async load(limitMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = await Promise.race([
      this.#channel.request({ type: "hello", nonce: "" }),
      new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), limitMs)),
    ]).finally(() => clearTimeout(timer));
    const parsed = reply === "timeout" ? null : this.#parsed(reply);
    if (parsed?.type === "loaded") return;
    const why = reply === "timeout"
      ? `it did not load within ${
        limitMs / 1000
      } s; set load_timeout_s on the system to allow longer`
      : parsed?.type === "failed"
      ? parsed.message
      : await this.#failure(reply);
    await this.kill();
    throw new RagbenchError(
      "config",
      `Cannot load custom system "${this.#spec.name}" from "${this.#spec.module}#${this.#spec.exportName}": ${
        why.replace(/\.$/, "")
      }.`,
    );
  }

  async run(request: RunRequest, onAsk: AskHandler, signal: AbortSignal): Promise<SystemAnswer> {
    const name = this.#spec.name;
    let turn = Promise.resolve();
    let askFailure: unknown = null;
    this.#onAsk = (message) => {
      const parsed = askSchema.safeParse(message);
      if (!parsed.success) {
        askFailure ??= new SystemFailedError(
          `custom system "${name}" made a malformed call (${
            parsed.error.issues[0]?.path.join(".") || "its shape"
          }: ${parsed.error.issues[0]?.message ?? ""})`,
        );
        void this.kill();
        return;
      }
      const ask = parsed.data;
      // Calls are served one at a time, in the order the system made them.
      turn = turn.then(async () => {
        if (signal.aborted || askFailure !== null) return;
        let answer: SystemHostMessage;
        try {
          answer = { type: "answer", id: ask.id, value: await onAsk(ask) };
        } catch (error) {
          if (!(error instanceof AskRefused)) {
            // The model call failed (or a bug): the question ends with that error.
            askFailure ??= error;
            void this.kill();
            return;
          }
          answer = { type: "answer", id: ask.id, error: error.message };
        }
        this.#channel.send(answer);
      });
    };
    const onAbort = () => void this.kill();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const reply = await this.#channel.request({ type: "run", ...request });
      await turn;
      if (signal.aborted) throw signal.reason;
      if (askFailure !== null) throw askFailure;
      const parsed = this.#parsed(reply);
      if (parsed?.type === "answered") return { answer: parsed.answer, cited: parsed.cited };
      if (parsed?.type === "failed") {
        throw new SystemFailedError(`custom system "${name}" failed: ${cut(parsed.message)}`);
      }
      await this.kill();
      throw new SystemFailedError(`custom system "${name}" failed: ${await this.#failure(reply)}`);
    } finally {
      this.#onAsk = null;
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** The reply when it is a well-formed message; null otherwise. */
  #parsed(reply: Reply): SystemReply | null {
    if (reply.kind !== "message") return null;
    const parsed = replySchema.safeParse(reply.message);
    return parsed.success ? parsed.data : null;
  }

  /** Why a request got no well-formed reply. */
  async #failure(reply: Reply): Promise<string> {
    if (reply.kind === "message") {
      return "its process sent a malformed reply (the answer too long, or not {answer, cited})";
    }
    if (reply.kind !== "exited") return describeBreach(reply);
    await Promise.race([
      this.#child.exited.then(() => this.#stderr.done),
      new Promise((r) => setTimeout(r, 1000)),
    ]);
    const text = this.#stderr.text().trim();
    if (/heap limit|out of memory/i.test(text)) {
      return `it ran out of memory (memory_mb is ${this.#spec.memoryMb ?? DEFAULT_MEMORY_MB})`;
    }
    return `its process exited: ${
      cut(text.split("\n").slice(-3).join(" ")) || "no output on stderr"
    }`;
  }
}

function cut(text: string): string {
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
