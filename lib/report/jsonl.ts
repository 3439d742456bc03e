/**
 * The results file, `per_question_results.jsonl`: one JSON object a line,
 * appended and flushed as each question finishes, so an interrupted run keeps
 * everything it finished. Each line goes to the file in a single write of the
 * whole line; a reader ignores a last line without its newline (a write cut
 * off by a crash), and resuming cuts that fragment away. At the run's end
 * `sorted_rewrite.ts` puts the lines in a fixed order.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import { eachLine, type LinesRead } from "../util/byte_lines.ts";
import { describeFsError } from "../util/fs.ts";

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
 * Reads the complete lines of a results file, streamed (`byte_lines.ts`):
 * the file is never one string, and a long run's file can be larger than
 * one string may be. A final line without its newline is dropped (and, with
 * `repair`, cut from the file).
 *
 * @throws {RagbenchError} code "io" when the file cannot be read, "data"
 *   naming the first line that is not JSON.
 */
// deno-lint-ignore require-await
export async function readJsonl(
  path: string,
  options: { repair?: boolean } = {},
): Promise<unknown[]> {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  const values: unknown[] = [];
  const decoder = new TextDecoder();
  let read: LinesRead;
  try {
    read = eachLine(file, (bytes, _offset, number) => {
      const text = decoder.decode(bytes);
      if (text.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new RagbenchError(
          "data",
          `"${path}" line ${number} is not valid JSON; move the file away or fix the line.`,
        );
      }
      values.push(value);
    });
  } catch (error) {
    if (error instanceof RagbenchError) throw error;
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  } finally {
    file.close();
  }
  if (read.unfinished > 0 && options.repair) {
    try {
      Deno.truncateSync(path, read.end);
    } catch (error) {
      throw new RagbenchError(
        "io",
        `Cannot cut the unfinished last line from "${path}": ${describeFsError(error)}.`,
        { cause: error },
      );
    }
  }
  return values;
}
