/**
 * A framework's process, seen from ragbench: started with the framework's
 * least permissions, a cleared environment and `--cached-only` (a run never
 * downloads), it serves the questions of one system, many at once, over the
 * line protocol of `protocol.ts` (the process itself: `framework_process.ts`).
 *
 * The process is the untrusted side. Its lines are parsed with strict
 * schemas and capped in length; a line that breaks the protocol, a process
 * that exits, or one that does not acknowledge a cancel within
 * {@link CANCEL_ACK_MS} (its main thread is stuck) is killed, and the
 * questions it was answering fail with a `system` error. The next question
 * starts a fresh process. `close` kills it; so does ragbench's exit
 * (`lib/util/child_registry.ts`), and the process ends itself when its stdin closes or its
 * parent is gone (`child_runtime.ts`).
 *
 * @module
 */

import type { AdapterTool } from "./protocol.ts";
import type { FrameworkManifest } from "./registry.ts";
import {
  cancel,
  CANCEL_ACK_MS,
  type FrameworkProcess,
  type HostOptions,
  type LiveRun,
  type RunHandlers,
  spawnFramework,
} from "./framework_process.ts";
import { SystemFailedError } from "../system.ts";

export type { HostOptions, RunHandlers } from "./framework_process.ts";
export { CANCEL_ACK_MS } from "./framework_process.ts";

/** What one question asks of the framework. */
export interface RunInput {
  system: string;
  question: string;
  tools: AdapterTool[];
  maxModelCalls: number;
}

/** One framework's process for one system. */
export interface FrameworkHost {
  /** Starts the process if none runs and resolves once the framework is loaded. */
  ready(): Promise<void>;
  /**
   * Runs one question. Resolves with the framework's answer; rejects with a
   * `SystemFailedError` when the framework fails, with a handler's error, or
   * with `signal.reason` when the signal aborts (the run is then cancelled).
   */
  run(input: RunInput, handlers: RunHandlers, signal: AbortSignal): Promise<string | null>;
  /** The V8 heap in use in the process, in bytes (starts it if none runs). */
  heapUsed(): Promise<number>;
  /** Kills the process. */
  close(): Promise<void>;
}

/** A host for `manifest`'s framework; no process is started until `ready` or `run`. */
export function createFrameworkHost(
  manifest: FrameworkManifest,
  options: HostOptions = {},
): FrameworkHost {
  let child: FrameworkProcess | null = null;
  let closed = false;
  let nextRun = 1;
  const current = (): FrameworkProcess => {
    if (closed) throw new SystemFailedError(`the ${manifest.type} process was closed`);
    if (!child || !child.alive) child = spawnFramework(manifest, options);
    return child;
  };
  return {
    ready: () => current().ready,
    async run(input, handlers, signal) {
      signal.throwIfAborted();
      let proc = current();
      // A process that has not acknowledged a cancel may be stuck: wait until it does or is killed.
      await abortable(Promise.all([...proc.acks.values()].map((a) => a.done)), signal);
      if (!proc.alive) proc = current();
      await abortable(proc.ready, signal);
      const id = nextRun++;
      return await new Promise<string | null>((resolve, reject) => {
        const live: LiveRun = {
          handlers,
          turn: Promise.resolve(),
          finished: false,
          resolve: (answer) => settle(() => resolve(answer)),
          reject: (error) => settle(() => reject(error)),
        };
        const onAbort = () => {
          live.reject(signal.reason);
          cancel(proc, id, options.cancelAckMs ?? CANCEL_ACK_MS);
        };
        function settle(then: () => void) {
          if (live.finished) return;
          live.finished = true;
          proc.runs.delete(id);
          signal.removeEventListener("abort", onAbort);
          then();
        }
        proc.runs.set(id, live);
        signal.addEventListener("abort", onAbort, { once: true });
        proc.send({
          t: "run",
          run: id,
          system: input.system,
          question: input.question,
          tools: input.tools,
          max_model_calls: input.maxModelCalls,
        });
      });
    },
    async heapUsed() {
      const proc = current();
      await proc.ready;
      return await new Promise<number>((resolve) => {
        proc.stats.push(resolve);
        proc.send({ t: "stats" });
      });
    },
    async close() {
      closed = true;
      await child?.kill();
    },
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
