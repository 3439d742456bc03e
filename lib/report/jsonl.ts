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
import { eachLine, type LinesRead } from "../util/byte_lines.ts";
import { describeFsError, writeChunksAtomic } from "../util/fs.ts";

/**
 * Where each appended or read object's line is, so {@link rewriteJsonl}
 * neither serialises nor encodes a run's results a second time (and never
 * writes a result as the run holds it after writing: `held_result.ts` trims
 * what it keeps). An object is not changed before it is appended (results
 * are final when handed to the sink). A line read by {@link readJsonl} keeps
 * only its place.
 *
 * The first {@link HELD_LINE_BYTES} of a writer's lines are kept as their
 * UTF-8 bytes (outside the JavaScript heap); after that only the line's
 * place in the file is kept, and the rewrite reads it back from there. So a
 * run of any size holds at most that many bytes of lines, plus a few dozen
 * bytes a line.
 */
const written = new WeakMap<object, Uint8Array | LineSpan>();

/** Where a line is in the file a writer appended it to. */
interface LineSpan {
  path: string;
  offset: number;
  length: number;
}

/** Bytes of lines a writer keeps for the rewrite before it keeps only their places. */
export const HELD_LINE_BYTES = 64 << 20;

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
export async function openJsonlWriter(
  path: string,
  options: Pick<JsonlWriterOptions, "heldBytes"> = {},
): Promise<JsonlWriter> {
  let file: Deno.FsFile;
  let size: number;
  try {
    file = await Deno.open(path, { append: true, create: true });
    size = file.statSync().size;
  } catch (error) {
    throw new RagbenchError("io", `Cannot open "${path}" for writing: ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  return jsonlWriter(file, path, { ...options, startOffset: size });
}

/** How a writer keeps track of its lines for {@link rewriteJsonl}. */
export interface JsonlWriterOptions {
  /** Where the first appended line starts: the file's size when it was opened. Default 0. */
  startOffset?: number;
  /** Bytes of lines kept in memory before only their places are. Default {@link HELD_LINE_BYTES}. */
  heldBytes?: number;
}

/**
 * A writer over an open file; `path` names it in errors.
 *
 * Each line is handed to the operating system before `append` returns (one
 * synchronous write; an async `write` costs about twenty times as much per
 * line, and a run appends one line per question): a line is in the file as
 * soon as its question is scored, and two lines can never interleave.
 */
export function jsonlWriter(
  file: WritableFile,
  path: string,
  options: JsonlWriterOptions = {},
): JsonlWriter {
  const encoder = new TextEncoder();
  let closed = false;
  let failure: RagbenchError | null = null;
  let end = options.startOffset ?? 0;
  let heldRoom = options.heldBytes ?? HELD_LINE_BYTES;
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
      if (typeof value === "object" && value !== null) {
        if (bytes.length <= heldRoom) {
          heldRoom -= bytes.length;
          written.set(value, bytes);
        } else {
          written.set(value, { path, offset: end, length: bytes.length });
        }
      }
      end += bytes.length;
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
 * `repair`, cut from the file). Each object's line keeps its place, so a
 * rewrite writes the line as read, and the run may trim the object it holds.
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
    read = eachLine(file, (bytes, offset, number) => {
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
      if (typeof value === "object" && value !== null) {
        written.set(value, { path, offset, length: bytes.length + 1 });
      }
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

/**
 * Replaces the file with `values`, one a line, atomically. A value appended
 * by a writer of this process is written as the line it was appended as,
 * read back from the file when the writer kept only its place.
 *
 * @throws {RagbenchError} code "io" when the file cannot be written, or
 *   when a line read back is not where its writer put it (the file was
 *   changed meanwhile); the file is then left as it was.
 */
export async function rewriteJsonl(path: string, values: readonly unknown[]): Promise<void> {
  using lines = new LineReader();
  await writeChunksAtomic(path, lineChunks(values, lines));
}

function* lineChunks(
  values: readonly unknown[],
  lines: LineReader,
): Generator<string | Uint8Array> {
  for (const value of values) {
    const kept = typeof value === "object" && value !== null ? written.get(value) : undefined;
    if (kept === undefined) yield JSON.stringify(value) + "\n";
    else if (kept instanceof Uint8Array) yield kept;
    else yield lines.read(kept);
  }
}

/** Bytes read at a time: lines appended about the same time come back from one read. */
const READ_WINDOW_BYTES = 1 << 20;

/** Reads lines back from where their writers put them, through a window of the file. */
class LineReader implements Disposable {
  #path: string | null = null;
  #file: Deno.FsFile | null = null;
  #buffer = new Uint8Array(0);
  /** The bytes last read, from `#windowStart` on (a view of `#buffer`). */
  #window = new Uint8Array(0);
  #windowStart = 0;

  /** The span's line; a view valid until the next read, as the next chunk is only asked for once this one is written. */

  read(span: LineSpan): Uint8Array {
    if (span.path !== this.#path) this.#open(span.path);
    const from = span.offset - this.#windowStart;
    if (from < 0 || from + span.length > this.#window.length) {
      this.#fill(span.offset, Math.max(READ_WINDOW_BYTES, span.length));
    }
    const at = span.offset - this.#windowStart;
    const line = this.#window.subarray(at, at + span.length);
    if (line.length !== span.length || line[line.length - 1] !== 0x0a) {
      throw new RagbenchError(
        "io",
        `"${span.path}" changed while the run was writing it: the line at byte ${span.offset} is no longer there (was it edited or cut?), so it was left as it is.`,
      );
    }
    return line;
  }

  #open(path: string): void {
    this.#file?.close();
    this.#file = null;
    this.#window = new Uint8Array(0);
    try {
      this.#file = Deno.openSync(path, { read: true });
    } catch (error) {
      throw new RagbenchError("io", `Cannot read "${path}" back: ${describeFsError(error)}.`, {
        cause: error,
      });
    }
    this.#path = path;
  }

  #fill(offset: number, length: number): void {
    if (this.#buffer.length < length) this.#buffer = new Uint8Array(length);
    const buffer = this.#buffer.subarray(0, length);
    this.#file!.seekSync(offset, Deno.SeekMode.Start);
    let filled = 0;
    while (filled < length) {
      const n = this.#file!.readSync(buffer.subarray(filled));
      if (n === null || n === 0) break;
      filled += n;
    }
    this.#window = buffer.subarray(0, filled);
    this.#windowStart = offset;
  }

  [Symbol.dispose](): void {
    this.#file?.close();
    this.#file = null;
  }
}
