/**
 * File helpers shared by the loaders and writers: readable reasons for
 * file-system errors, and atomic writes (temporary file, then rename).
 *
 * The reads and writes are synchronous behind their promise-returning
 * signatures: an async file operation waits for a thread-pool wake-up
 * (0.1–0.7 ms on the 2-core machines ragbench is measured on), longer than
 * writing the summaries or reading a config takes, and a run does about
 * forty of them (see "Start-up" in docs/architecture.md).
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import { basename } from "./paths.ts";
import { eachLine } from "./byte_lines.ts";
import { BINARY_SNIFF_BYTES, decodeUtf8, describeTextProblem } from "./utf8.ts";

/** A short, user-facing reason for a file-system error. */
export function describeFsError(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file or folder";
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return "permission denied (grant it with --allow-read / --allow-write for that path)";
  }
  if (error instanceof Deno.errors.IsADirectory) return "it is a folder, not a file";
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads a UTF-8 text file (a leading BOM dropped); a failure becomes a
 * user-facing error naming the file. Invalid UTF-8 is refused with its byte
 * offset and line, never decoded to U+FFFD; a NUL byte in the first 8 KB
 * (a binary file, or UTF-16 text) is refused as binary.
 *
 * @param subject what the file is, for the message ("config", "questions", ...)
 * @throws {RagbenchError} code "config" when it cannot be read or is not UTF-8.
 */
// deno-lint-ignore require-await
export async function readTextFile(path: string, subject: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (error) {
    throw new RagbenchError(
      "config",
      `Cannot read ${subject} "${path}": ${describeFsError(error)}.`,
      {
        cause: error,
      },
    );
  }
  const nul = bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0);
  if (nul >= 0) {
    throw new RagbenchError(
      "config",
      `Cannot read ${subject} "${path}": it is a binary file, not text (a NUL byte at byte ` +
        `${nul}); give a UTF-8 text file.`,
    );
  }
  const decoded = decodeUtf8(bytes);
  if ("text" in decoded) return decoded.text;
  throw new RagbenchError(
    "config",
    `Cannot read ${subject} "${path}": ${
      describeTextProblem(decoded, "split it into smaller files")
    }.`,
  );
}

/**
 * Writes `text` to `path` through a temporary file in the same folder and a
 * rename, so a reader (or a crash) never sees a half-written file.
 *
 * @param options.tmpDir where the temporary file goes instead (a folder this
 *   process may already read and write, such as the run directory), so that
 *   writing `path` needs write permission on that one file, not on its folder.
 *   When the two are on different file systems (no rename across them), the
 *   file is written in place.
 * @param options.rename stands in for `Deno.renameSync` (tests).
 * @throws {RagbenchError} code "io" when the file cannot be written.
 */
// deno-lint-ignore require-await
export async function writeFileAtomic(
  path: string,
  text: string,
  options: { tmpDir?: string; rename?: (from: string, to: string) => void } = {},
): Promise<void> {
  const name = options.tmpDir === undefined ? path : `${options.tmpDir}/.${basename(path)}`;
  const tmp = `${name}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    Deno.writeTextFileSync(tmp, text);
    try {
      (options.rename ?? Deno.renameSync)(tmp, path);
    } catch (error) {
      if (options.tmpDir === undefined || !isCrossDevice(error)) throw error;
      Deno.writeTextFileSync(path, text);
      removeQuietly(tmp);
    }
  } catch (error) {
    removeQuietly(tmp);
    throw new RagbenchError("io", `Cannot write "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
}

/** Bytes gathered before one write, when a file is written in many small pieces. */
const STAGING_BYTES = 1 << 20;

/**
 * Like {@link writeFileAtomic} for text made in pieces (a large report, a
 * results file): the pieces (text, or bytes already encoded) are written in
 * order, so the whole text never exists as one string or one buffer. Small
 * pieces are gathered into writes of about a megabyte, each a synchronous
 * write: an async write costs a thread wake-up, more than writing a megabyte.
 *
 * @throws {RagbenchError} code "io" when the file cannot be written.
 */
// deno-lint-ignore require-await
export async function writeChunksAtomic(
  path: string,
  chunks: Iterable<string | Uint8Array>,
): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const encoder = new TextEncoder();
  try {
    const file = Deno.openSync(tmp, { write: true, create: true, truncate: true });
    try {
      const staging = new Uint8Array(STAGING_BYTES);
      let used = 0;
      for (const chunk of chunks) {
        const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
        if (bytes.length > staging.length - used) {
          writeAllSync(file, staging.subarray(0, used));
          used = 0;
        }
        if (bytes.length >= staging.length) {
          writeAllSync(file, bytes);
        } else {
          staging.set(bytes, used);
          used += bytes.length;
        }
      }
      writeAllSync(file, staging.subarray(0, used));
    } finally {
      file.close();
    }
    Deno.renameSync(tmp, path);
  } catch (error) {
    removeQuietly(tmp);
    // The pieces' own error (a line read back from another file) says better what went wrong.
    if (error instanceof RagbenchError) throw error;
    throw new RagbenchError("io", `Cannot write "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
}

function writeAllSync(file: Deno.FsFile, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Nothing to clean up, or it cannot be removed: the write's own error is the news.
  }
}

/** A rename that failed because its two paths are on different file systems (EXDEV). */
function isCrossDevice(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === "EXDEV";
}

/**
 * Calls `take` for each line of the open `file` (at `path`), then closes it,
 * and says where the complete lines ended. A RagbenchError `take` throws
 * passes through; any other failure is an "io" error naming the file.
 *
 * @throws {RagbenchError}
 */
export function eachFileLine(
  file: Deno.FsFile,
  path: string,
  take: Parameters<typeof eachLine>[1],
): ReturnType<typeof eachLine> {
  try {
    return eachLine(file, take);
  } catch (error) {
    if (error instanceof RagbenchError) throw error;
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  } finally {
    file.close();
  }
}
