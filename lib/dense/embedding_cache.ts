/**
 * Embeddings kept on disk between runs, in one SQLite file
 * (`<cache dir>/embeddings-v1.sqlite`, `node:sqlite`), so a corpus is paid
 * for once.
 *
 * Key: the embedder id (provider, base URL, model, requested dimensions;
 * see openai_embedder.ts), the prefix put before the text, and the SHA-256
 * of the text (without the prefix). Texts themselves are not stored.
 *
 * Layout: one row per batch written (`batches`: embedder, prefix,
 * dimensions, count, the texts' SHA-256 digests as newline-separated base64,
 * and their vectors packed as one BLOB of little-endian float32). Reading
 * row by row through `node:sqlite` costs ~10 µs a row whatever its size, so a
 * row per text would cap lookups near 50,000 texts/s; a row per batch of 64
 * makes that cost negligible. Lookups keep an in-memory map from digest to
 * (batch, position) per embedder and prefix, brought up to date at each
 * lookup by reading only the batches added since (by this or another
 * process); vectors are read only for the batches that hold a wanted text.
 *
 * Concurrency: the database is in WAL mode (readers never wait for a
 * writer) with a busy timeout of {@link BUSY_TIMEOUT_MS}; a batch is one
 * INSERT, so it is either all there or not at all, and several ragbench
 * processes may index into the same cache at once (a writer waits for the
 * other instead of failing). If two processes embed the same text, both
 * rows are kept and either is used. Writes happen after each request to the
 * endpoint, so an interrupted run keeps every batch it paid for.
 *
 * @module
 */

import { dirname } from "../util/paths.ts";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { RagbenchError } from "../errors.ts";
import { describeFsError } from "../util/fs.ts";
import { setUpShared } from "../cache/sqlite_setup.ts";
import { sha256, useNativeSha256 } from "../util/sha256.ts";

/** How long a write waits for another process's write to finish, in ms. */
export const BUSY_TIMEOUT_MS = 15_000;

const SCHEMA = `CREATE TABLE IF NOT EXISTS batches (
  id INTEGER PRIMARY KEY,
  embedder TEXT NOT NULL,
  prefix TEXT NOT NULL,
  dimensions INTEGER NOT NULL,
  count INTEGER NOT NULL,
  hashes TEXT NOT NULL,
  vectors BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS batches_by_key ON batches (embedder, prefix, id);`;

/** One vector to store. */
export interface CacheEntry {
  text: string;
  vector: Float32Array;
}

/** Where a digest's vector is: batch row id, position in it, its size. */
interface Location {
  batch: number;
  position: number;
  dimensions: number;
}

/** The digests known for one embedder and prefix, and the last batch read. */
interface KeyIndex {
  lastId: number;
  locations: Map<string, Location>;
}

/** An open embedding cache; close it (or `using` it) when done. */
export class EmbeddingCache implements Disposable {
  /** Path of the SQLite file. */
  readonly path: string;
  #db: DatabaseSync;
  #newBatches: StatementSync;
  #vectors: StatementSync;
  #insert: StatementSync;
  #indexes = new Map<string, KeyIndex>();

  private constructor(path: string, db: DatabaseSync) {
    this.path = path;
    this.#db = db;
    this.#newBatches = db.prepare(
      "SELECT id, dimensions, count, hashes FROM batches WHERE embedder = ? AND prefix = ? AND id > ? ORDER BY id",
    );
    this.#vectors = db.prepare("SELECT vectors FROM batches WHERE id = ?");
    this.#insert = db.prepare(
      "INSERT INTO batches (embedder, prefix, dimensions, count, hashes, vectors) VALUES (?, ?, ?, ?, ?, ?)",
    );
  }

  /**
   * Opens (creating it and its folder if needed) the cache file at `path`.
   *
   * @throws {RagbenchError} ("io") naming the file when it cannot be created,
   *   opened or is not a ragbench cache.
   */
  static open(path: string): EmbeddingCache {
    // Every text embedded is hashed: from here on, natively.
    void useNativeSha256();
    let db: DatabaseSync | null = null;
    try {
      Deno.mkdirSync(dirname(path), { recursive: true });
      db = new DatabaseSync(path);
      setUpShared(db, BUSY_TIMEOUT_MS, `PRAGMA synchronous = NORMAL;\n${SCHEMA}`);
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

  /**
   * The stored vectors of `texts` under `embedder` and `prefix`; null where
   * there is none. The vectors may be views of one shared buffer: copy them
   * before changing them.
   */
  get(embedder: string, prefix: string, texts: readonly string[]): (Float32Array | null)[] {
    try {
      const { locations } = this.#refresh(embedder, prefix);
      const found = texts.map((text) => locations.get(sha256(text, "base64")) ?? null);
      const batches = new Map<number, Float32Array | null>();
      return found.map((at) => {
        if (at === null) return null;
        let vectors = batches.get(at.batch);
        if (vectors === undefined) {
          vectors = this.#readVectors(at.batch);
          batches.set(at.batch, vectors);
        }
        if (vectors === null) return null;
        const start = at.position * at.dimensions;
        if (start + at.dimensions > vectors.length) return null; // damaged row: treat as missing
        return vectors.subarray(start, start + at.dimensions);
      });
    } catch (error) {
      throw this.#failure("read", error);
    }
  }

  /** Stores `entries` (vectors of one size) as one batch: all or none. */
  put(embedder: string, prefix: string, entries: readonly CacheEntry[]): void {
    if (entries.length === 0) return;
    const dimensions = entries[0].vector.length;
    if (entries.some((e) => e.vector.length !== dimensions)) {
      throw new RangeError("a cache batch holds vectors of one size");
    }
    const packed = new Float32Array(entries.length * dimensions);
    entries.forEach((e, i) => packed.set(e.vector, i * dimensions));
    const hashes = entries.map((e) => sha256(e.text, "base64")).join("\n");
    try {
      this.#insert.run(
        embedder,
        prefix,
        dimensions,
        entries.length,
        hashes,
        new Uint8Array(packed.buffer),
      );
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

  /** Brings the digest map of `embedder` and `prefix` up to date with the file. */
  #refresh(embedder: string, prefix: string): KeyIndex {
    const key = `${embedder}\0${prefix}`;
    let index = this.#indexes.get(key);
    if (index === undefined) {
      index = { lastId: 0, locations: new Map() };
      this.#indexes.set(key, index);
    }
    for (const row of this.#newBatches.iterate(embedder, prefix, index.lastId)) {
      const { id, dimensions, count, hashes } = row as {
        id: number;
        dimensions: number;
        count: number;
        hashes: string;
      };
      index.lastId = id;
      const digests = hashes.split("\n");
      if (digests.length !== count) continue; // damaged row: ignore it
      for (let position = 0; position < count; position++) {
        index.locations.set(digests[position], { batch: id, position, dimensions });
      }
    }
    return index;
  }

  #readVectors(batch: number): Float32Array | null {
    const row = this.#vectors.get(batch) as { vectors: Uint8Array } | undefined;
    if (row === undefined || row.vectors.byteLength % 4 !== 0) return null;
    const bytes = row.vectors;
    // A Float32Array needs 4-byte alignment; copy only when the bytes lack it.
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
    return new Float32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
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

function reason(error: unknown): string {
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return describeFsError(error);
  }
  return error instanceof Error ? error.message : String(error);
}
