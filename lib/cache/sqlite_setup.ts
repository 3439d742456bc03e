/**
 * Opening a cache database that other ragbench processes may be opening at
 * the same moment. Both caches (embeddings, responses) use WAL mode with a
 * busy timeout, but SQLite does not call the busy handler when two
 * connections switch a new database to WAL (or create its tables) at once —
 * waiting could deadlock, so one gets "database is locked" straight away.
 * {@link setUpShared} therefore retries that setup, a bounded number of
 * times, with short pauses.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";

/** Setup attempts before a lock is reported. */
const ATTEMPTS = 50;
/** Pause between attempts, in milliseconds (at most ~2.5 s in all). */
const PAUSE_MS = 50;

/**
 * Sets `busy_timeout`, WAL mode and then runs `statements` on `db`, again
 * when another process holds the database for the same setup.
 *
 * @throws the last error when the database stays locked, or any other error at once.
 */
export function setUpShared(db: DatabaseSync, busyTimeoutMs: number, statements: string): void {
  // The busy timeout first: once both are in WAL mode, ordinary waits use it.
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  for (let attempt = 1;; attempt++) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      db.exec(statements);
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS || !/database is locked|SQLITE_BUSY/i.test(String(error))) {
        throw error;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, PAUSE_MS);
    }
  }
}
