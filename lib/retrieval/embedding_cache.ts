/**
 * Embeddings kept on disk between runs, in one SQLite file
 * (`<cache dir>/embeddings-v1.sqlite`, `node:sqlite`), so a corpus is paid
 * for once.
 *
 * Key: the embedder id (provider, base URL, model, requested dimensions;
 * see openai_embedder.ts), the prefix put before the text, and the SHA-256
 * of the text (without the prefix). Value: the vector as a BLOB of
 * little-endian float32, and its length. Texts themselves are not stored.
 *
 * Concurrency: the database is in WAL mode (readers never wait for a
 * writer) with a busy timeout of {@link BUSY_TIMEOUT_MS}, and every write is
 * one `BEGIN IMMEDIATE` transaction per batch, so several ragbench processes
 * may index into the same cache at once: a writer waits for the other
 * instead of failing, and a batch is either all there or not at all. Writes
 * happen after each request to the endpoint, so an interrupted run keeps
 * every batch it paid for.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { RagbenchError } from "../errors.ts";
import { describeFsError } from "../util/fs.ts";

/** How long a write waits for another process's write to finish, in ms. */
export const BUSY_TIMEOUT_MS = 15_000;

const SCHEMA = `CREATE TABLE IF NOT EXISTS embeddings (
  embedder TEXT NOT NULL,
  prefix TEXT NOT NULL,
  text_sha256 BLOB NOT NULL,
  dimensions INTEGER NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (embedder, prefix, text_sha256)
) WITHOUT ROWID`;

/** One vector to store. */
export interface CacheEntry {
  text: string;
  vector: Float32Array;
}

/** An open embedding cache; close it (or `using` it) when done. */
export class EmbeddingCache implements Disposable {
  /** Path of the SQLite file. */
  readonly path: string;
  #db: DatabaseSync;
  #select: StatementSync;
  #insert: StatementSync;

  private constructor(path: string, db: DatabaseSync) {
    this.path = path;
    this.#db = db;
    this.#select = db.prepare(
      "SELECT dimensions, vector FROM embeddings WHERE embedder = ? AND prefix = ? AND text_sha256 = ?",
    );
    this.#insert = db.prepare(
      "INSERT OR REPLACE INTO embeddings (embedder, prefix, text_sha256, dimensions, vector) VALUES (?, ?, ?, ?, ?)",
    );
  }

  /**
   * Opens (creating it and its folder if needed) the cache file at `path`.
   *
   * @throws {RagbenchError} ("io") naming the file when it cannot be created,
   *   opened or is not a ragbench cache.
   */
  static open(path: string): EmbeddingCache {
    let db: DatabaseSync | null = null;
    try {
      Deno.mkdirSync(dirname(path), { recursive: true });
      db = new DatabaseSync(path);
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec(SCHEMA);
      return new EmbeddingCache(path, db);
    } catch (error) {
      db?.close();
      throw new RagbenchError(
        "io",
        `Cannot open the embedding cache "${path}": ${reason(error)}. ` +
          "Give another folder with --cache-dir DIR, or delete the file to start an empty cache.",
        { cause: error },
      );
    }
  }

  /** The stored vectors of `texts` under `embedder` and `prefix`; null where there is none. */
  get(embedder: string, prefix: string, texts: readonly string[]): (Float32Array | null)[] {
    const out: (Float32Array | null)[] = [];
    try {
      for (const text of texts) {
        const row = this.#select.get(embedder, prefix, sha256(text)) as
          | { dimensions: number; vector: Uint8Array }
          | undefined;
        out.push(row === undefined ? null : toVector(row.vector, row.dimensions));
      }
    } catch (error) {
      throw this.#failure("read", error);
    }
    return out;
  }

  /** Stores `entries` in one transaction (all or none). */
  put(embedder: string, prefix: string, entries: readonly CacheEntry[]): void {
    if (entries.length === 0) return;
    try {
      this.#db.exec("BEGIN IMMEDIATE");
      try {
        for (const { text, vector } of entries) {
          const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
          this.#insert.run(embedder, prefix, sha256(text), vector.length, bytes);
        }
        this.#db.exec("COMMIT");
      } catch (error) {
        this.#db.exec("ROLLBACK");
        throw error;
      }
    } catch (error) {
      throw this.#failure("write", error);
    }
  }

  /** Closes the file (idempotent). */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #failure(what: "read" | "write", error: unknown): RagbenchError {
    return new RagbenchError(
      "io",
      `Cannot ${what} the embedding cache "${this.path}": ${reason(error)}. ` +
        "Check the folder's permissions and free space, or give another with --cache-dir DIR.",
      { cause: error },
    );
  }
}

/** SHA-256 of the UTF-8 text, 32 bytes. */
function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

function toVector(bytes: Uint8Array, dimensions: number): Float32Array | null {
  if (bytes.byteLength !== dimensions * 4) return null; // damaged row: treat as missing
  // Copy: the row's bytes may not be 4-byte aligned.
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, dimensions);
}

function reason(error: unknown): string {
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return describeFsError(error);
  }
  return error instanceof Error ? error.message : String(error);
}
