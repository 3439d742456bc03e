/**
 * Splits a byte stream into lines in time linear in its length: each chunk
 * is scanned once, from where the last scan stopped, and its bytes are
 * decoded once, as they arrive. (Appending chunks to a string and searching
 * it from the start on every chunk is quadratic: a 20 MB reply took seconds
 * and blocked the event loop.) The one splitter under every child pipe: the
 * hosts read their children's stdout through it (`child_pipes.ts`), and the
 * children read their stdin with it.
 *
 * `lineSplitter` is self-contained (it uses nothing else from its module),
 * so the custom tool's watchdog worker and the code agent's child are built
 * from its source text. It takes the built-in methods it uses when it is
 * made: in the code agent's child, a program may replace them afterwards
 * (an honest one for its own purposes), and the protocol must not break.
 *
 * @module
 */

/** A complete line (without `\n` or `\r\n`), or notice that a line passed the cap. */
export type LineEvent =
  | { type: "line"; text: string }
  /** The line passed the cap; the rest of it, up to its newline, is skipped. */
  | { type: "too_long"; limit: number };

/** What a line's cap counts: UTF-8 bytes, or UTF-16 code units of the decoded text. */
export type LineUnit = "bytes" | "chars";

/** Feeds chunks in; `end()` emits a last line that has no newline. */
export interface LineSplitter {
  push(chunk: Uint8Array): void;
  end(): void;
}

/**
 * A splitter that calls `emit` for each line. A line longer than `maxLine`
 * (in `unit`; Infinity for no cap) is reported once as `too_long` and never
 * held in memory beyond the cap. Bytes that are not UTF-8 become U+FFFD, as
 * if each line were decoded whole.
 */
export function lineSplitter(
  maxLine: number,
  emit: (event: LineEvent) => void,
  unit: LineUnit = "bytes",
): LineSplitter {
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const indexOf = uncurry(Uint8Array.prototype.indexOf) as (
    bytes: Uint8Array,
    value: number,
    from: number,
  ) => number;
  const subarray = uncurry(Uint8Array.prototype.subarray) as (
    bytes: Uint8Array,
    start: number,
    end: number,
  ) => Uint8Array;
  const charCodeAt = uncurry(String.prototype.charCodeAt) as (text: string, at: number) => number;
  const slice = uncurry(String.prototype.slice) as (
    text: string,
    start: number,
    end: number,
  ) => string;
  const decoder = new TextDecoder();
  const decode = uncurry(TextDecoder.prototype.decode) as (
    self: TextDecoder,
    bytes: Uint8Array,
    options?: { stream: boolean },
  ) => string;
  const streaming = { stream: true };
  const empty = new Uint8Array(0);
  const byBytes = unit === "bytes";
  // The line so far (decoded), its size in bytes and in characters, and whether the rest of an
  // over-long line is being skipped.
  let text = "";
  let bytes = 0;
  let chars = 0;
  let skipping = false;

  const finish = (last: string) => {
    const line = text + last;
    text = "";
    bytes = 0;
    chars = 0;
    const end = line.length > 0 && charCodeAt(line, line.length - 1) === 13
      ? line.length - 1
      : line.length;
    emit({ type: "line", text: end === line.length ? line : slice(line, 0, end) });
  };
  const overflow = () => {
    text = "";
    bytes = 0;
    chars = 0;
    decode(decoder, empty); // forget a character the line ended inside
    skipping = true;
    emit({ type: "too_long", limit: maxLine });
  };
  /** Adds `piece` to the line; `last`: its newline follows. */
  const take = (piece: Uint8Array, last: boolean) => {
    if (byBytes && bytes + piece.length > maxLine) return overflow();
    const part = last ? decode(decoder, piece) : decode(decoder, piece, streaming);
    if (!byBytes && chars + part.length > maxLine) return overflow();
    if (last) return finish(part);
    text += part;
    bytes += piece.length;
    chars += part.length;
  };
  return {
    push(chunk) {
      let start = 0;
      for (;;) {
        const newline = indexOf(chunk, 10, start);
        const end = newline === -1 ? chunk.length : newline;
        if (!skipping && end > start) take(subarray(chunk, start, end), newline !== -1);
        else if (!skipping && newline !== -1) finish(decode(decoder, empty));
        if (newline === -1) return;
        skipping = false;
        start = newline + 1;
      }
    },
    end() {
      if (!skipping && bytes > 0) finish(decode(decoder, empty));
      text = "";
      bytes = 0;
      chars = 0;
      skipping = false;
    },
  };
}
