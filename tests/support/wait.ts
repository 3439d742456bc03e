/**
 * Waiting in tests for something that must happen (a process to go, a line
 * to be written). The limit only keeps a broken build from hanging the
 * suite: it is far above what the awaited thing takes, so a loaded machine
 * never reaches it, and no test claims a speed with it.
 *
 * @module
 */

/** The longest a test waits for an event that must come. */
export const PATIENCE_MS = 30_000;
const POLL_MS = 50;

/** Polls `done` every 50 ms until it holds; false when it still does not after `limitMs`. */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  limitMs = PATIENCE_MS,
): Promise<boolean> {
  const until = performance.now() + limitMs;
  const polls = Math.ceil(limitMs / POLL_MS);
  for (let i = 0; i < polls; i++) {
    if (await done()) return true;
    if (performance.now() > until) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return await done();
}

/**
 * `promise`, or a rejection when it has not settled within `limitMs`: how a
 * test of something that must not hang fails instead of hanging the suite.
 */
export async function settledWithin<T>(promise: Promise<T>, limitMs = PATIENCE_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still unsettled after ${limitMs} ms: a hang`)),
      limitMs,
    );
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}
