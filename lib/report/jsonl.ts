/**
 * The results file, `per_question_results.jsonl`: one JSON object a line,
 * appended and flushed as each question finishes, so an interrupted run keeps
 * everything it finished. Each line goes to the file in a single write of the
 * whole line; a reader ignores a last line without its newline (a write cut
 * off by a crash), and resuming cuts that fragment away.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import { describeFsError, writeChunksAtomic } from "../util/fs.ts";

/**
 * The line each appended object was written as (its UTF-8 bytes), so
 * {@link rewriteJsonl} neither serialises nor encodes a run's results a
 * second time. An object is not changed after it is appended (results are
 * final when handed to the sink). Bytes rather than text: they live outside
 * the JavaScript heap, which a run's results would otherwise grow for the
 * garbage collector to walk.
 */
const written = new WeakMap<object, Uint8Array>();

/** Appends JSON lines to a file. */
export interface JsonlWriter {
  /**
   * Writes one line before returning; resolves then. After a failed write every
   * later append rejects with the same error and writes nothing, so the file
   * never gets a line after a cut one.
   *
   * @throws {RagbenchError} code "io" naming the file.
   */
  append(value: unknown): Promise<void>;
  /** Resolves when every appended line is written (or one failed): at once, since appends are synchronous. */
  flush(): Promise<void>;
  close(): void;
}

/** The part of `Deno.FsFile` a writer uses (injected by tests to fail writes). */
export interface WritableFile {
  writeSync(bytes: Uint8Array): number;
  close(): void;
}

/**
 * Opens `path` for appending (created if missing).
 *
 * @throws {RagbenchError} (code "io") when it cannot be opened.
 */
export async function openJsonlWriter(path: string): Promise<JsonlWriter> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { append: true, create: true });
  } catch (error) {
    throw new RagbenchError("io", `Cannot open "${path}" for writing: ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  return jsonlWriter(file, path);
}

/**
 * A writer over an open file; `path` names it in errors.
 *
 * Each line is handed to the operating system before `append` returns (one
 * synchronous write; an async `write` costs about twenty times as much per
 * line, and a run appends one line per question): a line is in the file as
 * soon as its question is scored, and two lines can never interleave.
 */
export function jsonlWriter(file: WritableFile, path: string): JsonlWriter {
  const encoder = new TextEncoder();
  let closed = false;
  let failure: RagbenchError | null = null;
  return {
    append(value) {
      if (failure !== null) return Promise.reject(failure);
      const bytes = encoder.encode(JSON.stringify(value) + "\n");
      if (typeof value === "object" && value !== null) written.set(value, bytes);
      try {
        let offset = 0;
        while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
      } catch (error) {
        failure = new RagbenchError("io", `Cannot write "${path}": ${describeFsError(error)}.`, {
          cause: error,
        });
        return Promise.reject(failure);
      }
      return Promise.resolve();
    },
    flush() {
      return Promise.resolve();
    },
    close() {
      if (!closed) {
        closed = true;
        file.close();
      }
    },
  };
}

/**
 * Reads the complete lines of a results file. A final line without its
 * newline is dropped (and, with `repair`, cut from the file).
 */
export async function readJsonl(
  path: string,
  options: { repair?: boolean } = {},
): Promise<unknown[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  const end = text.lastIndexOf("\n") + 1;
  if (end < text.length && options.repair) {
    await Deno.truncate(path, new TextEncoder().encode(text.slice(0, end)).length);
  }
  const values: unknown[] = [];
  text.slice(0, end).split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      values.push(JSON.parse(line));
    } catch {
      throw new RagbenchError(
        "data",
        `"${path}" line ${i + 1} is not valid JSON; move the file away or fix the line.`,
      );
    }
  });
  return values;
}

/**
 * Replaces the file with `values`, one a line, atomically. A value appended
 * by a writer of this process is written as the line it was appended as.
 */
export async function rewriteJsonl(path: string, values: readonly unknown[]): Promise<void> {
  await writeChunksAtomic(
    path,
    values.map((v) =>
      (typeof v === "object" && v !== null ? written.get(v) : undefined) ?? JSON.stringify(v) + "\n"
    ),
  );
}
