/**
 * The build lock of a saved index (`<key>.idx.lock` beside it): an OS file
 * lock taken with `FsFile.tryLock`, so it dies with its process and a
 * crashed builder never leaves a lock to clean up. Whoever holds it builds
 * and saves the index; the others wait, then load what it saved.
 *
 * @module
 */

import { dirname } from "../util/paths.ts";

/** Wait between two attempts at a lock another process holds. */
const LOCK_POLL_MS = 50;

/**
 * An exclusive lock on building one key (`<key>.idx.lock` beside the index,
 * an OS file lock: it dies with its process, so a crashed builder never
 * leaves a lock that must be cleaned up). Release with
 * {@link IndexLock.release} (or `using`).
 */
export interface IndexLock extends Disposable {
  /** Whether another process held the lock when it was first tried (it may have saved the index). */
  readonly waited: boolean;
  release(): void;
}

/** How to wait for a build lock. */
export interface LockOptions {
  /** Give up (null: build without the lock) after this many ms. */
  waitMs: number;
  /** Called once when another process holds the lock, before waiting. */
  onWait?: (path: string) => void;
}

/**
 * Takes the build lock of `path`'s key, waiting while another process holds
 * it, at most `options.waitMs` (then null: build without it). Synchronous
 * (it sleeps between attempts), as the BM25 build it guards is. Null too
 * when the lock file cannot be made (a read-only cache folder): the caller
 * builds anyway.
 */
export function lockIndexSync(path: string, options: LockOptions): IndexLock | null {
  const file = openLockFile(path);
  if (file === null) return null;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = performance.now() + options.waitMs;
  let waited = false;
  for (;;) {
    if (file.tryLockSync(true)) return heldLock(file, waited);
    if (!waited) options.onWait?.(path);
    waited = true;
    if (performance.now() >= deadline) {
      file.close();
      return null;
    }
    Atomics.wait(sleeper, 0, 0, LOCK_POLL_MS);
  }
}

/**
 * {@link lockIndexSync} that waits without blocking, until `signal` aborts
 * (then it rejects with the signal's reason) or `options.waitMs` passes (null).
 */
export async function lockIndex(
  path: string,
  options: LockOptions,
  signal: AbortSignal,
): Promise<IndexLock | null> {
  const file = openLockFile(path);
  if (file === null) return null;
  const deadline = performance.now() + options.waitMs;
  let waited = false;
  try {
    for (;;) {
      signal.throwIfAborted();
      if (file.tryLockSync(true)) return heldLock(file, waited);
      if (!waited) options.onWait?.(path);
      waited = true;
      if (performance.now() >= deadline) {
        file.close();
        return null;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, LOCK_POLL_MS);
        signal.addEventListener("abort", done, { once: true });
        function done() {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
      });
    }
  } catch (error) {
    file.close();
    throw error;
  }
}

function openLockFile(path: string): Deno.FsFile | null {
  try {
    Deno.mkdirSync(dirname(path), { recursive: true });
    return Deno.openSync(`${path}.lock`, { read: true, write: true, create: true });
  } catch {
    return null;
  }
}

function heldLock(file: Deno.FsFile, waited: boolean): IndexLock {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    file.close(); // Closing the file drops its lock.
  };
  return { waited, release, [Symbol.dispose]: release };
}
