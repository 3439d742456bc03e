/**
 * Giving the event loop a turn in the middle of long work, so that messages
 * that arrived meanwhile (a worker's next call, a worker's reply to the main
 * thread) are handled between slices of it.
 *
 * A timer, not a `MessageChannel`: a channel message comes back in ~0.1 ms
 * where `setTimeout(0)` takes 1-3 ms here, but measured on Deno 2.9.6 a loop
 * yielding through a channel starved the worker's messages — a reply the
 * worker sent at once reached the main thread only when the loop ended
 * (0.2-0.7 s later at 100,000 documents); through a timer, within 10 ms. So
 * callers cut their work into slices of several milliseconds.
 *
 * @module
 */

/** Resolves after the event loop has had a turn (a `setTimeout(0)`). */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0));
}
