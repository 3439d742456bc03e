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
import { describeFsError } from "../util/fs.ts";
import { eachJsonlValue } from "../util/jsonl_values.ts";

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
  const values: unknown[] = [];
  eachJsonlValue(path, (value) => void values.push(value), options);
  return values;
}
