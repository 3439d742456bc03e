/**
 * A sleep that a signal ends: the retry back-off, the rate limiter's wait
 * and the embedder's back-off all wait through it.
 *
 * @module
 */

/** Resolves after `ms`, or rejects with the signal's reason when it fires first. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
