/**
 * The sandbox worker's thread, started before its host exists. A run knows
 * from its config whether any system offers a built-in long before the
 * corpus is loaded and the host can be made; starting the thread then lets
 * the worker load its modules while the main thread loads the data and
 * builds the retrievers, instead of after.
 *
 * Until a host adopts it (`createWorkerHost(env, { started })`), the worker
 * receives nothing and sends nothing; an error it raises meanwhile (it could
 * not load its modules) is kept, not thrown, and the host reports it as its
 * own start-up failure.
 *
 * @module
 */

/** The entry of the built-ins' worker. */
export const WORKER_URL: URL = new URL("./builtin_worker.ts", import.meta.url);

/** A started worker waiting for its host. Dispose of it on paths where no host adopts it. */
export interface StartedWorker extends Disposable {
  /** Takes the worker over: its failure so far (if it could not load) comes with it. */
  adopt(): { worker: Worker; failure: ErrorEvent | null };
}

/** Starts a permission-less module worker at `url`, as the built-ins' host does. */
export function spawnWorker(url: URL = WORKER_URL): Worker {
  return new Worker(url, { type: "module", deno: { permissions: "none" } });
}

/**
 * Starts the worker now. Disposing of it before a host adopted it
 * terminates it; after, it does nothing (the host owns the worker).
 *
 * @throws {TypeError} from `adopt` when called a second time.
 */
export function startWorker(url: URL = WORKER_URL): StartedWorker {
  const worker = spawnWorker(url);
  let failure: ErrorEvent | null = null;
  let adopted = false;
  worker.onerror = (event) => {
    event.preventDefault();
    failure ??= event;
  };
  return {
    adopt() {
      if (adopted) throw new TypeError("a started worker can be adopted once");
      adopted = true;
      worker.onerror = null;
      return { worker, failure };
    },
    [Symbol.dispose]() {
      if (!adopted) {
        adopted = true;
        worker.terminate();
      }
    },
  };
}
