/**
 * The response cache on disk: recorded model responses and tool results,
 * content-addressed (cache_key.ts), in one SQLite file
 * `<cache folder>/responses-v1.sqlite` (cache_dir.ts finds the folder).
 *
 * Table `responses (key TEXT PRIMARY KEY, kind TEXT, value TEXT, recorded_at TEXT)`:
 * `key` is the SHA-256 hex of the request, `kind` is `model`, `tool`, `retrieval` or `service`,
 * `value` the JSON of the response (its shape is checked by the reader, so
 * an entry that does not fit is a miss, never a crash), `recorded_at` an
 * ISO 8601 UTC time. SQLite (`node:sqlite`, built into Deno) in WAL mode with
 * a busy timeout lets several ragbench processes read and record at once:
 * a writer waits for another's transaction instead of failing, readers are
 * never blocked, and a crashed writer leaves no half-written entry. One file
 * per key would need a rename per entry and leave thousands of small files;
 * SQLite gives the same atomicity with one file to copy or delete.
 *
 * @module
 */

import { DatabaseSync, type StatementSync } from "node:sqlite";
import { join } from "../util/paths.ts";
import { RagbenchError } from "../errors.ts";
import { describeFsError } from "../util/fs.ts";
import { setUpShared } from "./sqlite_setup.ts";
import { useNativeSha256 } from "../util/sha256.ts";

/** File name of the response cache inside the cache folder (the version changes with the layout). */
export const RESPONSE_CACHE_FILE = "responses-v1.sqlite";

/** How long a writer waits for another process's transaction before giving up, ms. */
export const BUSY_TIMEOUT_MS = 10_000;

/** What a lookup found. */
export type CacheLookup =
  | { found: true; value: unknown }
  | { found: false; corrupt: boolean };

/** An open response cache. Close it when the run ends. */
export interface ResponseCache {
  /** Path of the SQLite file. */
  readonly path: string;
  /** The recorded value under `key`; an unreadable entry is reported as corrupt, not thrown. */
  get(key: string): CacheLookup;
  /**
   * Records `value` (JSON-serialisable) under `key`, replacing an older entry.
   *
   * @throws {RagbenchError} ("io") when the file cannot be written.
   */
  put(key: string, kind: "model" | "tool" | "retrieval" | "service", value: unknown): void;
  close(): void;
}

/**
 * Opens (creating when needed) the cache file in `dir`.
 *
 * @throws {RagbenchError} ("io") when the folder cannot be made or the file
 *   is not a readable SQLite database.
 */
export function openResponseCache(dir: string): ResponseCache {
  // Every model call (and cached tool call) is keyed by a hash: from here on, natively.
  void useNativeSha256();
  const path = join(dir, RESPONSE_CACHE_FILE);
  try {
    Deno.mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new RagbenchError(
      "io",
      `Cannot create the cache folder "${dir}": ${describeFsError(error)}. ` +
        "Choose another with --cache-dir DIR, or run with --cache off.",
      { cause: error },
    );
  }
  let db: DatabaseSync | undefined;
  let select: StatementSync;
  let insert: StatementSync;
  try {
    db = new DatabaseSync(path);
    setUpShared(
      db,
      BUSY_TIMEOUT_MS,
      "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, kind TEXT NOT NULL, " +
        "value TEXT NOT NULL, recorded_at TEXT NOT NULL) WITHOUT ROWID",
    );
    select = db.prepare("SELECT value FROM responses WHERE key = ?");
    insert = db.prepare(
      "INSERT OR REPLACE INTO responses (key, kind, value, recorded_at) VALUES (?, ?, ?, ?)",
    );
  } catch (error) {
    db?.close();
    throw new RagbenchError(
      "io",
      `Cannot open the response cache "${path}": ${describeFsError(error)}. ` +
        "Delete the file (it only holds recorded responses) or choose another folder with --cache-dir DIR.",
      { cause: error },
    );
  }
  const open = db;
  return {
    path,
    get(key) {
      let row: unknown;
      try {
        row = select.get(key);
      } catch {
        return { found: false, corrupt: true };
      }
      if (row === undefined) return { found: false, corrupt: false };
      const text = (row as { value?: unknown }).value;
      if (typeof text !== "string") return { found: false, corrupt: true };
      try {
        return { found: true, value: JSON.parse(text) };
      } catch {
        return { found: false, corrupt: true };
      }
    },
    put(key, kind, value) {
      try {
        insert.run(key, kind, JSON.stringify(value), new Date().toISOString());
      } catch (error) {
        throw new RagbenchError(
          "io",
          `Cannot record a response in the cache "${path}": ${describeFsError(error)}.`,
          { cause: error },
        );
      }
    },
    close() {
      if (open.isOpen) open.close();
    },
  };
}
