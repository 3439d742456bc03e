/**
 * Content hashes for the run manifest: SHA-256 of canonical JSON (object
 * keys sorted, so the same value always hashes the same) and of the files a
 * run reads, streamed so a large corpus is never held twice in memory. A
 * folder hashes as the sorted list of its files' relative paths and hashes,
 * so renaming, adding or editing any file changes it.
 *
 * @module
 */

import { join, relativePath } from "../util/paths.ts";
import { RagbenchError } from "../errors.ts";
import { describeFsError } from "../util/fs.ts";
import { canonicalJson } from "../util/canonical_json.ts";
import { createSha256, sha256, useNativeSha256 } from "../util/sha256.ts";

/**
 * Once the files of one `digestPaths` call come to this many bytes, they are
 * hashed by `node:crypto` (see `lib/util/sha256.ts`): one large file, or a
 * folder of many small ones.
 */
const NATIVE_HASH_FROM_BYTES = 1 << 20;

/** Bytes of the files hashed so far by one `digestPaths` call. */
interface HashedBytes {
  total: number;
}

/** The hash of one input path (a file, or a folder of files). */
export interface PathDigest {
  path: string;
  /** Null when ragbench may not read the path (see `ifReadable` of {@link digestPaths}). */
  sha256: string | null;
  /** Files hashed (1 for a file, 0 when not read). */
  files: number;
}

/** Hex SHA-256 of a string (UTF-8). */
export function sha256Hex(text: string): string {
  return sha256(text);
}

/** Hex SHA-256 of {@link canonicalJson}. */
export function hashValue(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

async function hashFile(
  path: string,
  hashed: HashedBytes,
  buffer: Uint8Array,
  signal?: AbortSignal,
): Promise<string> {
  using file = Deno.openSync(path, { read: true });
  const size = file.statSync().size;
  hashed.total += size;
  if (hashed.total >= NATIVE_HASH_FROM_BYTES) await useNativeSha256();
  const hash = createSha256();
  while (true) {
    signal?.throwIfAborted();
    // A file smaller than the buffer in synchronous reads (an async read costs a thread wake-up,
    // more than hashing a small file: a folder of 20,000 documents took seconds), a larger one
    // in async reads, so the event loop sees a Ctrl-C between megabytes.
    const n = size < buffer.length ? file.readSync(buffer) : await file.read(buffer);
    if (n === null) break;
    hash.update(buffer.subarray(0, n));
  }
  return hash.hex();
}

/** Files under `dir` (following links), relative paths sorted. */
function listFiles(dir: string): string[] {
  const files: string[] = [];
  const pending = [dir];
  const seen = new Set<string>();
  while (pending.length) {
    const current = pending.pop()!;
    const real = Deno.realPathSync(current);
    if (seen.has(real)) continue;
    seen.add(real);
    for (const entry of Deno.readDirSync(current)) {
      const full = join(current, entry.name);
      const info = entry.isSymlink ? statOrNull(full) : entry;
      if (info?.isDirectory) pending.push(full);
      else if (info?.isFile) files.push(relativePath(dir, full));
    }
  }
  return files.sort();
}

function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch {
    return null;
  }
}

/**
 * Hashes each path: a file's bytes, or a folder's files. With `ifReadable`,
 * a path Deno does not already grant read access to is recorded unhashed
 * (never prompting): a custom tool's module runs in its own process, so the
 * run itself need not be allowed to read it.
 *
 * @throws {RagbenchError} code "io" naming the path that cannot be read.
 */
export async function digestPaths(
  paths: readonly string[],
  options: { signal?: AbortSignal; ifReadable?: boolean } = {},
): Promise<PathDigest[]> {
  const { signal } = options;
  const digests: PathDigest[] = [];
  const hashed: HashedBytes = { total: 0 };
  const buffer = new Uint8Array(1 << 20);
  for (const path of paths) {
    if (
      options.ifReadable && Deno.permissions.querySync({ name: "read", path }).state !== "granted"
    ) {
      digests.push({ path, sha256: null, files: 0 });
      continue;
    }
    try {
      const info = Deno.statSync(path);
      if (!info.isDirectory) {
        digests.push({ path, sha256: await hashFile(path, hashed, buffer, signal), files: 1 });
        continue;
      }
      const lines: string[] = [];
      const files = listFiles(path);
      for (const rel of files) {
        lines.push(`${rel}\0${await hashFile(join(path, rel), hashed, buffer, signal)}\n`);
      }
      digests.push({ path, sha256: sha256Hex(lines.join("")), files: files.length });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new RagbenchError(
        "io",
        `Cannot hash "${path}" for run.json: ${describeFsError(error)}.`,
        { cause: error },
      );
    }
  }
  return digests;
}
