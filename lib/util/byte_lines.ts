/**
 * The lines of a file as bytes, read a megabyte at a time: for files that
 * can be larger than one JavaScript string may be (V8 refuses a string past
 * 2^29 − 24 characters, ~536 MB of ASCII), such as a long run's results or
 * a large JSONL corpus. Each line comes with its byte offset and number, so
 * a caller can say where a problem is, or find the line again.
 *
 * @module
 */

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/** The part of `Deno.FsFile` read here. */
export interface ReadableFile {
  readSync(into: Uint8Array): number | null;
}

/** Where the file's complete lines end. */
export interface LinesRead {
  /** Byte offset just past the last `\n`. */
  end: number;
  /** Bytes after it: a last line without its newline (0 when the file ends with one). */
  unfinished: number;
}

/** What {@link eachLine} does besides passing on complete lines. */
export interface EachLineOptions {
  /** Pass on a last line without a newline too (a text file's last line); default false. */
  unfinished?: boolean;
  /** Sees the file's first bytes before any line (a binary sniff). */
  onFirstChunk?: (bytes: Uint8Array) => void;
}

/** A line of a file: its bytes (without `\n`), where it starts, and its number from 1. */
export interface ByteLine {
  /** A view valid until the next line is asked for. */
  bytes: Uint8Array;
  offset: number;
  number: number;
}

/**
 * The complete lines of a file (without their `\n`; a `\r` before it
 * stays), each with its byte offset and number. A last line without a
 * newline is counted in the generator's return value, and yielded only with
 * `unfinished`.
 */
export function* byteLines(
  file: ReadableFile,
  options: EachLineOptions = {},
): Generator<ByteLine, LinesRead> {
  const chunk = new Uint8Array(CHUNK_BYTES);
  let pieces: Uint8Array[] = [];
  let lineStart = 0;
  let number = 0;
  let first = true;
  while (true) {
    const n = file.readSync(chunk);
    if (n === null) break;
    const bytes = chunk.subarray(0, n);
    if (first) {
      first = false;
      options.onFirstChunk?.(bytes);
    }
    let from = 0;
    for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, from)) {
      const line = pieces.length
        ? joined([...pieces, bytes.subarray(from, nl)])
        : bytes.subarray(from, nl);
      pieces = [];
      yield { bytes: line, offset: lineStart, number: ++number };
      lineStart += line.length + 1;
      from = nl + 1;
    }
    if (from < n) pieces.push(bytes.slice(from));
  }
  const rest = pieces.length ? joined(pieces) : null;
  if (rest !== null && options.unfinished) {
    yield { bytes: rest, offset: lineStart, number: ++number };
  }
  return { end: lineStart, unfinished: rest?.length ?? 0 };
}

/** {@link byteLines} through a callback: `onLine` gets each line's bytes, offset and number. */
export function eachLine(
  file: ReadableFile,
  onLine: (bytes: Uint8Array, offset: number, number: number) => void,
  options: EachLineOptions = {},
): LinesRead {
  const lines = byteLines(file, options);
  for (let next = lines.next();; next = lines.next()) {
    if (next.done) return next.value;
    onLine(next.value.bytes, next.value.offset, next.value.number);
  }
}

function joined(pieces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
