/**
 * Splits a byte stream into lines in time linear in its length: each chunk
 * is scanned once, from where the last scan stopped, and a line's pieces are
 * joined once when its newline arrives. (Appending chunks to a string and
 * searching it from the start on every chunk is quadratic: a 20 MB reply
 * took seconds and blocked the event loop.)
 *
 * `lineSplitter` is self-contained (it uses nothing else from its module),
 * so the custom tool's watchdog worker is built from its source text.
 *
 * @module
 */

/** A complete line (without `\n` or `\r\n`), or notice that a line passed the cap. */
export type LineEvent =
  | { type: "line"; text: string }
  /** The line reached `maxLineBytes`; the rest of it, up to its newline, is skipped. */
  | { type: "too_long"; limit: number };

/** Feeds chunks in; `end()` emits a last line that has no newline. */
export interface LineSplitter {
  push(chunk: Uint8Array): void;
  end(): void;
}

/**
 * A splitter that calls `emit` for each line. A line longer than
 * `maxLineBytes` (Infinity for no cap) is reported once as `too_long` and
 * never held in memory beyond the cap.
 */
export function lineSplitter(
  maxLineBytes: number,
  emit: (event: LineEvent) => void,
): LineSplitter {
  const decoder = new TextDecoder();
  let pieces: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  const finish = (last: Uint8Array) => {
    let bytes = last;
    if (pieces.length > 0) {
      bytes = new Uint8Array(size + last.length);
      let offset = 0;
      for (const piece of pieces) {
        bytes.set(piece, offset);
        offset += piece.length;
      }
      bytes.set(last, offset);
    }
    pieces = [];
    size = 0;
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 13) end--;
    emit({ type: "line", text: decoder.decode(bytes.subarray(0, end)) });
  };
  const overflow = () => {
    pieces = [];
    size = 0;
    skipping = true;
    emit({ type: "too_long", limit: maxLineBytes });
  };
  return {
    push(chunk) {
      let start = 0;
      while (start <= chunk.length) {
        const newline = chunk.indexOf(10, start);
        const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
        if (!skipping && size + piece.length > maxLineBytes) overflow();
        if (newline === -1) {
          // The stream may reuse its buffer: keep a copy of the unfinished line.
          if (!skipping && piece.length > 0) {
            pieces.push(piece.slice());
            size += piece.length;
          }
          return;
        }
        if (skipping) skipping = false;
        else finish(piece);
        start = newline + 1;
      }
    },
    end() {
      if (!skipping && size > 0) finish(new Uint8Array(0));
      pieces = [];
      size = 0;
      skipping = false;
    },
  };
}
