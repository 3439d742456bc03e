/**
 * Runs the built-in tools in a Web Worker started with no Deno permissions.
 * The worker gets the corpus once, builds the indexes of the tools it is
 * asked to prepare before the run's first call, and keeps them for the run.
 *
 * Calls are answered in order. A call abandoned while it waits in the queue
 * is skipped; a call abandoned while it runs gets the worker replaced (the
 * new one is given the corpus again), and the calls queued behind it are
 * sent to the new worker, not failed.
 *
 * Why built-ins can live in a worker even though `Worker.terminate()` does
 * not stop a CPU-bound loop on Deno 2.9: every built-in is bounded by
 * construction (calculator limits, RE2's linear-time matching, capped inputs
 * and outputs, indexes built in `prepare`), so no built-in call can spin.
 * Code that cannot be bounded — custom tools — runs in a subprocess instead
 * (`subprocess_host.ts`).
 *
 * @module
 */

import { RagbenchError } from "../../lib/errors.ts";
import type { HostCall, HostEnv, ToolHost } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";
import { spawnWorker, type StartedWorker, WORKER_URL } from "./early_worker.ts";

/** A host whose tools may need preparing before the first call. */
export interface WorkerHost extends ToolHost {
  /** Resolves when the worker has the corpus and the prepared tools' indexes. */
  ready(): Promise<void>;
}

interface Pending {
  message: HostMessage & { type: "call" };
  resolve(result: RawToolResult): void;
}

/**
 * A built-ins host backed by a permission-less worker. `prepare` names the
 * tools whose indexes to build when the worker starts. `workerUrl` swaps in
 * another worker entry (tests use it to run probe tools under the same
 * sandbox). `started` is a worker already started for this host
 * (`early_worker.ts`): the host's first worker is that one (a restart makes a
 * new one).
 */
export function createWorkerHost(
  env: HostEnv & { prepare?: readonly string[] },
  options: { workerUrl?: URL; started?: StartedWorker } = {},
): WorkerHost {
  let started = options.started ?? null;
  let worker: Worker | null = null;
  let prepared: Promise<void> = Promise.resolve();
  let nextId = 1;
  // Insertion order is the worker's order: the first entry is the call it is running.
  const pending = new Map<number, Pending>();
  // Questions ended since the last call: their state is dropped when the next call arrives, not
  // by a message each (a message wakes the worker's thread, which is most of a call's cost).
  let ended: string[] = [];

  const stop = () => {
    worker?.terminate();
    worker = null;
    // A new worker starts with no state to forget.
    ended = [];
  };
  const start = (): Worker => {
    const early = started?.adopt() ?? null;
    started = null;
    const w = early?.worker ?? spawnWorker(options.workerUrl ?? WORKER_URL);
    let markPrepared = () => {};
    let failPrepare = (_error: Error) => {};
    let isPrepared = false;
    prepared = new Promise<void>((resolve, reject) => {
      markPrepared = () => {
        isPrepared = true;
        resolve();
      };
      failPrepare = reject;
    });
    // Nobody may be waiting for ready(); a failure then shows in the calls instead.
    prepared.catch(() => {});
    w.onmessage = (event: MessageEvent<SandboxMessage>) => {
      const message = event.data;
      if (message.type === "prepared") markPrepared();
      if (message.type !== "result") return;
      const entry = pending.get(message.id);
      pending.delete(message.id);
      entry?.resolve(message.result);
    };
    const onError = (event: ErrorEvent) => {
      event.preventDefault();
      if (!isPrepared) {
        // It could not even load: no call can run. Say why, once, instead of retrying.
        failPrepare(
          new RagbenchError(
            "permission",
            `The tool sandbox (a worker) could not start: ${event.message}. Grant read access to ` +
              `ragbench's own tools/ and lib/ folders (see "ragbench permissions CONFIG").`,
          ),
        );
        stop();
        for (const entry of pending.values()) {
          entry.resolve(
            errorResult("unavailable", "The tool runner could not start.", event.message),
          );
        }
        pending.clear();
        return;
      }
      // A bug in the worker: fail the call it was running, carry on with a new one.
      const [id, running] = pending.entries().next().value ?? [];
      if (running) {
        pending.delete(id!);
        running.resolve(errorResult(
          "execution",
          "The tool failed unexpectedly.",
          `worker error: ${event.message}`,
        ));
      }
      restart();
    };
    w.onerror = onError;
    w.postMessage(
      {
        type: "init",
        corpus: env.corpus,
        now: env.now,
        prepare: [...(env.prepare ?? [])],
      } satisfies HostMessage,
    );
    // It failed before it was handed over: report it as this host's own start-up failure, once
    // the caller holds the worker (as a live error event would arrive).
    const failure = early?.failure;
    if (failure) queueMicrotask(() => onError(failure));
    return w;
  };
  const restart = () => {
    stop();
    if (pending.size === 0) return;
    worker = start();
    for (const entry of pending.values()) worker.postMessage(entry.message);
  };

  return {
    ready() {
      worker ??= start();
      return prepared;
    },
    call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
      if (signal.aborted) return Promise.resolve(abandoned());
      worker ??= start();
      const id = nextId++;
      const message: HostMessage & { type: "call" } = {
        type: "call",
        id,
        tool: call.tool,
        args: call.args,
        options: call.options,
        questionKey: call.questionKey,
      };
      if (ended.length > 0) {
        message.ended = ended;
        ended = [];
      }
      return new Promise<RawToolResult>((resolve) => {
        const onAbort = () => {
          const running = pending.keys().next().value === id;
          pending.delete(id);
          resolve(abandoned());
          // The worker may be stuck on this call: replace it. A queued call is just skipped.
          if (running) restart();
          else worker?.postMessage({ type: "cancel", id } satisfies HostMessage);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        pending.set(id, {
          message,
          resolve(result) {
            signal.removeEventListener("abort", onAbort);
            resolve(result);
          },
        });
        worker!.postMessage(message);
      });
    },
    endQuestion(questionKey: string) {
      if (worker !== null) ended.push(questionKey);
    },
    close() {
      started?.[Symbol.dispose]();
      started = null;
      stop();
      for (const entry of pending.values()) {
        entry.resolve(errorResult("unavailable", "The run ended before the tool answered."));
      }
      pending.clear();
      return Promise.resolve();
    },
  };
}

function abandoned(): RawToolResult {
  return errorResult("timeout", "The tool call was stopped before it finished.");
}
