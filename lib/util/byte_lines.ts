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

/**
 * Calls `onLine` with each complete line (without its `\n`; a `\r` before it
 * stays), its byte offset and its number from 1. The bytes are a view valid
 * only during the call. A last line without a newline is counted in the
 * result, and passed on only with `unfinished`.
 */
export function eachLine(
  file: ReadableFile,
  onLine: (bytes: Uint8Array, offset: number, number: number) => void,
  options: EachLineOptions = {},
): LinesRead {
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
      onLine(line, lineStart, ++number);
      lineStart += line.length + 1;
      from = nl + 1;
    }
    if (from < n) pieces.push(bytes.slice(from));
  }
  const rest = pieces.length ? joined(pieces) : null;
  if (rest !== null && options.unfinished) onLine(rest, lineStart, ++number);
  return { end: lineStart, unfinished: rest?.length ?? 0 };
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
