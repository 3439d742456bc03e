/**
 * Reading the PDF reader process's pipes (`pdf_process.ts`): stdout as
 * lines of at most a given size (a longer one reads as {@link TOO_LONG}, so
 * a child cannot make the parent buffer without bound), stderr as its last
 * few thousand characters, both drained to their end so the child never
 * blocks on a full pipe.
 *
 * @module
 */

/** What {@link LineReader.next} returns for a line over its size. */
export const TOO_LONG = "\u0000too long";

/**
 * Lines of a pipe, each at most `maxBytes` (a longer one reads as
 * {@link TOO_LONG}); a read in progress is never lost to a timeout, since
 * the same pending read serves the next call.
 */
export class LineReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #max: number;
  readonly #ready: string[] = [];
  #parts: Uint8Array[] = [];
  #size = 0;
  #skipping = false;
  #ended = false;
  #pending: Promise<void> | null = null;
  readonly #decoder = new TextDecoder();

  constructor(stream: ReadableStream<Uint8Array>, maxBytes: number) {
    this.#reader = stream.getReader();
    this.#max = maxBytes;
  }

  /** The next line, {@link TOO_LONG}, or null once the pipe ended. */
  async next(): Promise<string | null> {
    while (this.#ready.length === 0) {
      if (this.#ended) return null;
      this.#pending ??= this.#read().finally(() => this.#pending = null);
      await this.#pending;
    }
    return this.#ready.shift()!;
  }

  /** Stops reading; `next` then returns null. Never rejects. */
  async cancel(): Promise<void> {
    this.#ended = true;
    await this.#reader.cancel().catch(() => {});
  }

  async #read(): Promise<void> {
    const read = await this.#reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (read.done) {
      this.#ended = true;
      return;
    }
    let chunk = read.value;
    while (chunk.length > 0) {
      const newline = chunk.indexOf(10);
      const piece = newline < 0 ? chunk : chunk.subarray(0, newline);
      if (!this.#skipping) {
        if (this.#size + piece.length > this.#max) {
          this.#skipping = true;
          this.#parts = [];
          this.#size = 0;
        } else {
          this.#parts.push(piece.slice());
          this.#size += piece.length;
        }
      }
      if (newline < 0) break;
      if (this.#skipping) this.#ready.push(TOO_LONG);
      else this.#ready.push(this.#decoder.decode(concat(this.#parts, this.#size)));
      this.#skipping = false;
      this.#parts = [];
      this.#size = 0;
      chunk = chunk.subarray(newline + 1);
    }
  }
}

/** The end of a pipe's text, drained to its end so the child never blocks on it. */
export class TailText {
  /** The last characters read. */
  text = "";
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>, keep: number) {
    const reader = stream.getReader();
    this.#reader = reader;
    const decoder = new TextDecoder();
    this.#done = (async () => {
      while (true) {
        const read = await reader.read().catch(() => ({ done: true as const }));
        if (read.done || read.value === undefined) return;
        this.text = (this.text + decoder.decode(read.value, { stream: true })).slice(-keep);
      }
    })();
  }

  /** Waits until the pipe ended, at most `ms`. */
  async settled(ms: number): Promise<void> {
    await within(this.#done, ms);
  }

  /** Stops reading. Never rejects. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `promise`'s value when it settles within `ms`, else null; leaves no timer behind. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise.catch(() => null),
      new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
