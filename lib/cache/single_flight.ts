/**
 * Identical requests in flight merged into one: the response cache's
 * wrappers (model calls, `lib/llm/cached_model.ts`; a retriever service's
 * answers, `lib/retrieval/remote/cached_call.ts`) send a cache miss through
 * {@link SingleFlight.lead}, and a twin that misses while it is in flight
 * (two systems asking the same thing at once) {@link SingleFlight.join}s it
 * and is served its value as a cache hit — as it would be had the first
 * finished before it looked. Without this both went live and one recording
 * overwrote the other, so what a run recorded, and so what its replay
 * served, depended on `--concurrency`.
 *
 * A failed flight is not its twins': `join` then gives null and the twin
 * makes its own call.
 *
 * @module
 */

/** The calls in flight by key. */
export class SingleFlight<T> {
  readonly #calls = new Map<string, Promise<T>>();

  /**
   * The call in flight under `key`, to wait for: resolves to its value, or
   * to null when it failed. Null at once when none is in flight, without
   * yielding, so that the caller can look the key up and {@link lead} in the
   * same turn: a twin that starts before it yields then finds its flight.
   *
   * The promise rejects with the signal's reason when `signal` aborts first
   * (the flight goes on for its owner).
   */
  join(key: string, signal?: AbortSignal): Promise<{ value: T } | null> | null {
    const call = this.#calls.get(key);
    if (call === undefined) return null;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const settled = call.then((value) => ({ value }), () => null);
    if (signal === undefined) return settled;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      settled.then((result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      });
    });
  }

  /**
   * Runs `call` as the flight of `key`, which twins {@link join} until it
   * settles. When one is already in flight (a twin whose flight failed,
   * racing another such twin), `call` runs on its own.
   */
  async lead(key: string, call: () => Promise<T>): Promise<T> {
    if (this.#calls.has(key)) return await call();
    // Called inside an async function, so a call that throws at once is a rejected flight too.
    const flight = (async () => await call())();
    this.#calls.set(key, flight);
    try {
      return await flight;
    } finally {
      this.#calls.delete(key);
    }
  }

  /** How many keys are in flight (for tests). */
  get size(): number {
    return this.#calls.size;
  }
}
