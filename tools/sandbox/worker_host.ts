/**
 * Runs the built-in tools in a Web Worker started with no Deno permissions.
 *
 * The worker gets the corpus once: the main thread writes the documents'
 * text into shared memory a slice at a time (`shared_corpus.ts`) and posts
 * it, which shares rather than copies it; the worker then builds the indexes
 * of the tools it is asked to prepare and keeps them for the run. A tool that
 * does not read the corpus (`readsCorpus: false`: calculator, date_calc) is
 * served from the worker's start, while the corpus is written and the
 * indexes are built; a call to a tool that reads it is held here until the
 * worker says that tool is ready, so the worker's queue never holds a call
 * that must wait. While a call is in flight to the worker the main thread
 * writes no text (`idle` of `shareCorpus`): the worker has the CPU to answer
 * and the main thread is free to take the reply.
 *
 * Calls sent are answered in order. A call abandoned while it waits (here or
 * in the worker's queue) is skipped; a call abandoned while it runs gets the
 * worker replaced (the new one is given the same shared corpus, and builds
 * its indexes again), and the calls behind it go to the new worker as their
 * tools get ready there, not failed.
 *
 * Why built-ins can live in a worker even though `Worker.terminate()` does
 * not stop a CPU-bound loop on Deno 2.9: every built-in is bounded by
 * construction (calculator limits, RE2's linear-time matching, capped inputs
 * and outputs, indexes built in `prepare`), so no built-in call can spin.
 * Code that cannot be bounded — custom tools — runs in a subprocess instead
 * (`subprocess_host.ts`). A replaced worker still finishing a call only reads
 * the shared text (the grep kernel takes its needle as arguments).
 *
 * @module
 */

import { RagbenchError } from "../../lib/errors.ts";
import type { HostCall, HostEnv, ToolHost } from "../host.ts";
import { errorResult, type RawToolResult } from "../invoke.ts";
import { WORKER_TOOLS } from "../worker_registry.ts";
import type { HostMessage, SandboxMessage } from "./protocol.ts";
import type { SharedCorpus } from "./shared_corpus.ts";
import { spawnWorker, type StartedWorker, WORKER_URL } from "./early_worker.ts";

/** A host whose tools may need preparing before the first call. */
export interface WorkerHost extends ToolHost {
  /**
   * Resolves when the worker is ready for each of `tools` (default: every
   * tool the host was asked to prepare): loaded, and for a tool that reads
   * the corpus, with the corpus and the tool's indexes. Rejects when the
   * worker could not start.
   */
  ready(tools?: readonly string[]): Promise<void>;
}

interface Pending {
  message: HostMessage & { type: "call" };
  resolve(result: RawToolResult): void;
}

/** A promise with its settlers, already handled (nobody may wait for it). */
interface Gate {
  promise: Promise<void>;
  open(): void;
  fail(error: Error): void;
  opened: boolean;
}

function gate(): Gate {
  const g = { opened: false } as Gate;
  g.promise = new Promise<void>((resolve, reject) => {
    g.open = () => {
      g.opened = true;
      resolve();
    };
    g.fail = reject;
  });
  g.promise.catch(() => {});
  return g;
}

/**
 * Whether a built-in reads the corpus (its `readsCorpus`, true unless it says
 * not). A name the worker does not serve reads nothing: its call is answered
 * `unknown_tool` at once (tests' probe workers serve such names, none of them
 * reading the corpus).
 */
function readsCorpus(tool: string): boolean {
  const def = WORKER_TOOLS.get(tool);
  return def !== undefined && def.readsCorpus !== false;
}

/**
 * A built-ins host backed by a permission-less worker. `prepare` names the
 * tools whose indexes to build when the worker starts. `workerUrl` swaps in
 * another worker entry (tests use it to run probe tools under the same
 * sandbox). `started` is a worker already started for this host
 * (`early_worker.ts`): the host's first worker is that one (a restart makes a
 * new one). `share` writes the corpus into shared memory (tests slow it down
 * or make it fail; default `shareCorpus`); it is given `idle`, which resolves
 * when no call is in flight to the worker, for `shareCorpus`'s `idle`.
 */
export function createWorkerHost(
  env: HostEnv & { prepare?: readonly string[] },
  options: {
    workerUrl?: URL;
    started?: StartedWorker;
    share?: (
      corpus: HostEnv["corpus"],
      signal: AbortSignal,
      idle: () => Promise<void>,
    ) => Promise<SharedCorpus>;
  } = {},
): WorkerHost {
  const prepare = [...(env.prepare ?? [])];
  let started = options.started ?? null;
  let worker: Worker | null = null;
  let nextId = 1;
  // Sent calls; insertion order is the worker's order: the first entry is the call it is running.
  const pending = new Map<number, Pending>();
  // Who waits for no call in flight (the corpus's writer, between slices); `settled` wakes them.
  let idleWaiters: (() => void)[] = [];
  const idle = (): Promise<void> =>
    pending.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
  const settled = () => {
    if (pending.size > 0 || idleWaiters.length === 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  // Calls whose tool is not ready in the current worker yet, in the order they came.
  let held: Pending[] = [];
  // Questions ended since the last call: their state is dropped when the next call arrives, not
  // by a message each (a message wakes the worker's thread, which is most of a call's cost).
  let ended: string[] = [];
  // Readiness of the current worker: the tools it has said are ready, and whether it has the corpus.
  let readyNow = new Set<string>();
  let loaded = false;
  let corpusIn = false;
  let corpusSent = false;
  // First readiness, for `ready()`: a worker that is replaced later does not make it pending again.
  const firstReady = new Map<string, Gate>(prepare.map((tool) => [tool, gate()]));
  const firstLoaded = gate();
  const firstCorpus = gate();
  const gateOf = (tool: string): Gate =>
    firstReady.get(tool) ?? (readsCorpus(tool) ? firstCorpus : firstLoaded);
  // A tool that does not read the corpus is sent at once: the worker handles `init` (and any
  // preparing of such tools) before the calls behind it, so nothing in its queue waits.
  const isReady = (tool: string): boolean => {
    if (!readsCorpus(tool)) return true;
    return prepare.includes(tool) ? readyNow.has(tool) : corpusIn;
  };
  const failAll = (error: Error, result: RawToolResult) => {
    for (const g of [firstLoaded, firstCorpus, ...firstReady.values()]) {
      if (!g.opened) g.fail(error);
    }
    for (const entry of [...pending.values(), ...held]) entry.resolve(result);
    pending.clear();
    held = [];
    settled();
  };

  // The corpus's text, written into shared memory once and given to every worker of this host.
  const sharing = new AbortController();
  let shared: Promise<SharedCorpus> | null = null;
  // Why the corpus could not be shared, once it could not: the corpus tools' calls fail with it.
  let shareFailure: string | null = null;
  const corpusUnavailable = (reason: string) =>
    errorResult("unavailable", "The tool could not get the corpus.", reason);
  // Its module is loaded when a worker starts that will want the corpus, while that worker loads.
  let sharingModule: Promise<typeof import("./shared_corpus.ts")> | null = null;
  const loadSharing = () => (sharingModule ??= import("./shared_corpus.ts"));
  const share = options.share ??
    (async (corpus, signal, idle) => (await loadSharing()).shareCorpus(corpus, { signal, idle }));
  // Whether the current worker is to get the corpus once it has answered `init`.
  let corpusWanted = false;
  const sendCorpus = () => {
    if (corpusSent || worker === null) return;
    // Not before the worker has answered `init`: the main thread stays free to take the replies
    // of the calls that need no corpus (a calculator's first call), which come right behind it.
    if (!loaded) {
      corpusWanted = true;
      return;
    }
    corpusSent = true;
    const target = worker;
    shared ??= share(env.corpus, sharing.signal, idle);
    shared.then(
      (corpus) => {
        if (worker === target) target.postMessage({ type: "corpus", corpus } satisfies HostMessage);
      },
      (error) => {
        if (sharing.signal.aborted || worker !== target) return;
        const message = error instanceof Error ? error.message : String(error);
        shareFailure = message;
        const failure = new RagbenchError(
          "data",
          `The corpus could not be handed to the tool sandbox: ${message}`,
        );
        // The tools that do not read the corpus still work.
        for (const [tool, g] of firstReady) if (readsCorpus(tool) && !g.opened) g.fail(failure);
        if (!firstCorpus.opened) firstCorpus.fail(failure);
        const [stuck, rest] = partition(held, (entry) => readsCorpus(entry.message.tool));
        held = rest;
        for (const entry of stuck) entry.resolve(corpusUnavailable(message));
      },
    );
  };

  const stop = () => {
    worker?.terminate();
    worker = null;
    // A new worker starts with no state to forget, and must be told everything again.
    ended = [];
    readyNow = new Set();
    loaded = false;
    corpusIn = false;
    corpusSent = false;
    corpusWanted = false;
  };
  const send = (entry: Pending) => {
    if (ended.length > 0) {
      entry.message.ended = ended;
      ended = [];
    }
    pending.set(entry.message.id, entry);
    worker!.postMessage(entry.message);
  };
  // Sends the held calls whose tool is ready now, keeping the order of the others.
  const release = () => {
    if (worker === null || held.length === 0) return;
    const [go, stay] = partition(held, (entry) => isReady(entry.message.tool));
    held = stay;
    for (const entry of go) send(entry);
  };
  const start = (): Worker => {
    const early = started?.adopt() ?? null;
    started = null;
    const w = early?.worker ?? spawnWorker(options.workerUrl ?? WORKER_URL);
    w.onmessage = (event: MessageEvent<SandboxMessage>) => {
      if (w !== worker) return;
      const message = event.data;
      if (message.type === "prepared") {
        loaded = true;
        firstLoaded.open();
        if (corpusWanted) sendCorpus();
        if (message.tools === undefined) {
          corpusIn = true;
          firstCorpus.open();
        }
        for (const tool of message.tools ?? prepare) {
          readyNow.add(tool);
          firstReady.get(tool)?.open();
        }
        release();
        return;
      }
      if (message.type !== "result") return;
      const entry = pending.get(message.id);
      pending.delete(message.id);
      entry?.resolve(message.result);
      settled();
    };
    const onError = (event: ErrorEvent) => {
      event.preventDefault();
      if (w !== worker) return;
      if (!loaded) {
        // It could not even load: no call can run. Say why, once, instead of retrying.
        const error = new RagbenchError(
          "permission",
          `The tool sandbox (a worker) could not start: ${event.message}. Grant read access to ` +
            `ragbench's own tools/ and lib/ folders (see "ragbench permissions CONFIG").`,
        );
        stop();
        sharing.abort();
        failAll(
          error,
          errorResult("unavailable", "The tool runner could not start.", event.message),
        );
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
    worker = w;
    w.postMessage({ type: "init", now: env.now, prepare } satisfies HostMessage);
    // Tools that do not read the corpus are ready once the worker answers `init`; the others once
    // it has the corpus, which is written (after `init` is answered) only when such a tool is
    // prepared or called.
    if (prepare.some(readsCorpus) || held.some((entry) => readsCorpus(entry.message.tool))) {
      if (!options.share) loadSharing().catch(() => {});
      sendCorpus();
    }
    // It failed before it was handed over: report it as this host's own start-up failure, once
    // the caller holds the worker (as a live error event would arrive).
    const failure = early?.failure;
    if (failure) queueMicrotask(() => onError(failure));
    return w;
  };
  const restart = () => {
    stop();
    // The calls sent to the old worker go first, in their order, as their tools get ready again.
    held = [...pending.values(), ...held];
    pending.clear();
    settled();
    if (held.length === 0) return;
    for (const entry of held) delete entry.message.ended;
    start();
  };

  return {
    ready(tools = prepare) {
      if (worker === null) start();
      const all = Promise.all(tools.map((tool) => gateOf(tool).promise)).then(() => {});
      // Nobody may wait for it (a system with no job left); a failure then shows in the calls.
      all.catch(() => {});
      return all;
    },
    call(call: HostCall, signal: AbortSignal): Promise<RawToolResult> {
      if (signal.aborted) return Promise.resolve(abandoned());
      if (shareFailure !== null && readsCorpus(call.tool)) {
        return Promise.resolve(corpusUnavailable(shareFailure));
      }
      if (worker === null) start();
      const id = nextId++;
      const message: HostMessage & { type: "call" } = {
        type: "call",
        id,
        tool: call.tool,
        args: call.args,
        options: call.options,
        questionKey: call.questionKey,
      };
      return new Promise<RawToolResult>((resolve) => {
        const onAbort = () => {
          resolve(abandoned());
          const waiting = held.indexOf(entry);
          if (waiting >= 0) {
            held.splice(waiting, 1);
            return;
          }
          const running = pending.keys().next().value === id;
          pending.delete(id);
          settled();
          // The worker may be stuck on this call: replace it. A queued call is just skipped.
          if (running) restart();
          else worker?.postMessage({ type: "cancel", id } satisfies HostMessage);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        const entry: Pending = {
          message,
          resolve(result) {
            signal.removeEventListener("abort", onAbort);
            resolve(result);
          },
        };
        if (isReady(call.tool)) {
          send(entry);
          return;
        }
        held.push(entry);
        if (readsCorpus(call.tool)) sendCorpus();
      });
    },
    endQuestion(questionKey: string) {
      if (worker !== null) ended.push(questionKey);
    },
    close() {
      started?.[Symbol.dispose]();
      started = null;
      sharing.abort();
      stop();
      for (const entry of [...pending.values(), ...held]) {
        entry.resolve(errorResult("unavailable", "The run ended before the tool answered."));
      }
      pending.clear();
      held = [];
      settled();
      return Promise.resolve();
    },
  };
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}

function abandoned(): RawToolResult {
  return errorResult("timeout", "The tool call was stopped before it finished.");
}
