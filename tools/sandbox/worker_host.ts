/**
 * Runs the built-in tools in a Web Worker started with no Deno permissions.
 * The worker gets the corpus once and keeps it (and the indexes built from
 * it) for the whole run. A call that is abandoned — timed out or cancelled —
 * gets the worker terminated and replaced on the next call, and the other
 * calls it was holding get an `unavailable` error.
 *
 * Why built-ins can live in a worker even though `Worker.terminate()` does
 * not stop a CPU-bound loop on Deno 2.9: every built-in is bounded by
 * construction (calculator limits, RE2's linear-time matching, capped
 * outputs), so no built-in call can spin. Code that cannot be bounded —
 * custom tools — runs in a subprocess instead (`subprocess_host.ts`).
 *
 * @module
 */

import type { HostCall, HostEnv, ToolHost } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";

const WORKER_URL = new URL("./builtin_worker.ts", import.meta.url);

/**
 * A built-ins host backed by a permission-less worker. `workerUrl` swaps in
 * another worker entry (tests use it to run probe tools under the same
 * sandbox).
 */
export function createWorkerHost(env: HostEnv, options: { workerUrl?: URL } = {}): ToolHost {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, (result: RawToolResult) => void>();

  const settleAll = (result: RawToolResult) => {
    for (const resolve of pending.values()) resolve(result);
    pending.clear();
  };
  const stop = () => {
    worker?.terminate();
    worker = null;
  };
  const start = (): Worker => {
    const w = new Worker(options.workerUrl ?? WORKER_URL, {
      type: "module",
      deno: { permissions: "none" },
    });
    w.onmessage = (event: MessageEvent<SandboxMessage>) => {
      const message = event.data;
      if (message.type !== "result") return;
      const resolve = pending.get(message.id);
      pending.delete(message.id);
      resolve?.(message.result);
    };
    w.onerror = (event) => {
      event.preventDefault();
      stop();
      settleAll(
        errorResult("execution", "The tool failed unexpectedly.", `worker error: ${event.message}`),
      );
    };
    send(w, { type: "init", corpus: env.corpus, now: env.now });
    return w;
  };

  return {
    call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
      if (signal.aborted) return Promise.resolve(abandoned());
      worker ??= start();
      const id = nextId++;
      return new Promise<RawToolResult>((resolve) => {
        const onAbort = () => {
          pending.delete(id);
          resolve(abandoned());
          // The worker may be stuck on this call: replace it, and tell the
          // calls queued behind it to try again.
          stop();
          settleAll(errorResult(
            "unavailable",
            "The tool runner was restarted while this call waited; try the call again.",
          ));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        pending.set(id, (result) => {
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        });
        send(worker!, {
          type: "call",
          id,
          tool: call.tool,
          args: call.args,
          options: call.options,
          questionKey: call.questionKey,
        });
      });
    },
    endQuestion(questionKey: string) {
      if (worker) send(worker, { type: "end", questionKey });
    },
    close() {
      stop();
      settleAll(errorResult("unavailable", "The run ended before the tool answered."));
      return Promise.resolve();
    },
  };
}

function send(worker: Worker, message: HostMessage): void {
  worker.postMessage(message);
}

function abandoned(): RawToolResult {
  return errorResult("timeout", "The tool call was stopped before it finished.");
}
