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
 * questions it was answering fail with a `system` error. A process that had
 * loaded is replaced at once when it ends, and {@link FrameworkHost.pending}
 * tells the runner to hold the system's next question until the replacement
 * has loaded (and until a cancel is acknowledged or its process killed), so
 * that no question's latency or timeout pays for a start-up; a process that
 * never loaded is started again by the next question. `close` kills it; so
 * does ragbench's exit
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
   * Null when a question can start at once; otherwise a promise that resolves
   * (never rejects) when one can: a cancel is not yet acknowledged (the
   * process may be stuck and be killed), or the process that replaces a
   * killed one is still loading. The runner starts no question of the system
   * meanwhile (`PlannedSystem.pending`).
   */
  pending(): Promise<void> | null;
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
  /** Processes that have loaded (a replacement is started only for one of them). */
  const loaded = new WeakSet<FrameworkProcess>();
  const spawn = (): FrameworkProcess => {
    const proc = spawnFramework(manifest, options);
    proc.ready.then(() => loaded.add(proc), () => {});
    // Replaced as soon as it ends, outside any question: its start-up is in no one's latency.
    void proc.gone.then(() => {
      if (!closed && child === proc && loaded.has(proc)) child = spawn();
    });
    return proc;
  };
  const current = (): FrameworkProcess => {
    if (closed) throw new SystemFailedError(`the ${manifest.type} process was closed`);
    if (!child || !child.alive) child = spawn();
    return child;
  };
  const settled = async (proc: FrameworkProcess): Promise<void> => {
    await Promise.all([...proc.acks.values()].map((a) => a.done));
    // Killed for want of an ack, or ended: its `gone` handler (registered first) replaces it.
    if (!proc.alive) await proc.gone;
    const next = child;
    if (next !== null && next.alive) await next.ready.catch(() => {});
  };
  return {
    ready: () => current().ready,
    pending() {
      const proc = child;
      if (closed || proc === null) return null;
      if (proc.alive && proc.acks.size === 0 && loaded.has(proc)) return null;
      // One that never loaded is not replaced here: the next question starts it, as the first.
      if (!proc.alive && !loaded.has(proc)) return null;
      return settled(proc);
    },
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
