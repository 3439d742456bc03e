/**
 * The complete lines of a file as strings, for readers that parse every
 * line of a large file (`ragbench report` over a million result lines). Each
 * megabyte read is decoded once up to its last newline and split there,
 * instead of decoding each line on its own (a call per line that cost about
 * a third as much as parsing the line). Like `byte_lines.ts`, the file is
 * never one string, and a last line without its newline is not passed on.
 *
 * @module
 */

import type { LinesRead, ReadableFile } from "./byte_lines.ts";

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * Calls `onLine` with each complete line (without its `\n`; a `\r` before it stays) and its
 * number from 1. Invalid UTF-8 becomes U+FFFD, as `TextDecoder` makes it.
 */
export function eachTextLine(
  file: ReadableFile,
  onLine: (text: string, number: number) => void,
): LinesRead {
  const batches = textLineBatches(file);
  let number = 0;
  for (let next = batches.next();; next = batches.next()) {
    if (next.done) return next.value;
    for (const line of next.value) onLine(line, ++number);
  }
}

/**
 * The complete lines of `file` as {@link eachTextLine} passes them, a read's worth at a time
 * (for a reader that must yield between lines, as a generator writing a file does).
 */
export function* textLineBatches(file: ReadableFile): Generator<string[], LinesRead> {
  const decoder = new TextDecoder();
  let buffer = new Uint8Array(CHUNK_BYTES);
  // Bytes of `buffer` not yet passed on (a line begun in an earlier read).
  let held = 0;
  let end = 0;
  while (true) {
    if (held === buffer.length) {
      // A line longer than the buffer: grow it.
      const grown = new Uint8Array(buffer.length * 2);
      grown.set(buffer);
      buffer = grown;
    }
    const n = file.readSync(buffer.subarray(held));
    if (n === null || n === 0) break;
    const filled = held + n;
    const last = buffer.subarray(0, filled).lastIndexOf(0x0a);
    if (last === -1) {
      held = filled;
      continue;
    }
    // A newline byte is never inside a multi-byte character: the text up to it decodes whole.
    yield decoder.decode(buffer.subarray(0, last)).split("\n");
    end += last + 1;
    buffer.copyWithin(0, last + 1, filled);
    held = filled - last - 1;
  }
  return { end, unfinished: held };
}
