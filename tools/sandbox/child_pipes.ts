/**
 * Reading a child process's output pipes, for every host that starts one
 * (custom-tool processes, code-agent sandboxes, MCP command servers):
 * stdout as lines (through `lineSplitter`, linear and capped), stderr as a
 * bounded piece of text kept for error messages. Both drain their pipe to
 * its end, so a child never blocks on a full pipe, and both can be
 * cancelled: a process that left the child's group may hold a pipe open for
 * ever, so a host never waits on one without a bound.
 *
 * @module
 */

import { type LineEvent, lineSplitter, type LineUnit } from "./line_splitter.ts";

/** The lines of a pipe, asked for one at a time. */
export interface PipeLines {
  /**
   * The next line, or notice that a line passed the cap (the lines after it
   * follow); null once the pipe has ended or was cancelled. Calls are served
   * in order.
   */
  next(): Promise<LineEvent | null>;
  /** Stops reading (the pipe is cancelled); `next` then returns null. Never rejects. */
  cancel(): Promise<void>;
}

/**
 * Reads `stream` as lines of at most `maxLine` (in `unit`). A last piece
 * without a newline when the pipe ends is not a line: every protocol here
 * ends its messages with one.
 */
export function pipeLines(
  stream: ReadableStream<Uint8Array>,
  maxLine: number,
  unit: LineUnit,
): PipeLines {
  const reader = stream.getReader();
  const ready: LineEvent[] = [];
  let head = 0;
  let ended = false;
  const splitter = lineSplitter(maxLine, (event) => ready.push(event), unit);
  const step = async (): Promise<LineEvent | null> => {
    while (head === ready.length) {
      if (ended) return null;
      ready.length = 0;
      head = 0;
      const read = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (read.done) ended = true;
      else splitter.push(read.value);
    }
    return ready[head++];
  };
  let turn: Promise<unknown> = Promise.resolve();
  return {
    next() {
      const result = turn.then(step);
      turn = result.catch(() => {});
      return result;
    },
    async cancel() {
      ended = true;
      await reader.cancel().catch(() => {});
    },
  };
}

/** Text kept from a pipe. */
export interface KeptText {
  /** What is kept so far. */
  text(): string;
  /** Settles (never rejects) when the pipe has ended or was cancelled. */
  readonly done: Promise<void>;
  /** Stops reading (the pipe is cancelled). Never rejects. */
  cancel(): Promise<void>;
}

/**
 * Drains `stream`, keeping its first or last `chars` characters; reading it
 * costs time linear in its length. `onText` sees the kept text after each
 * chunk.
 */
export function keepText(
  stream: ReadableStream<Uint8Array>,
  options: { chars: number; keep: "head" | "tail"; onText?: (text: string) => void },
): KeptText {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let kept = "";
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (options.keep === "tail") {
        kept = (kept + decoder.decode(value, { stream: true })).slice(-options.chars);
      } else if (kept.length < options.chars) {
        kept = (kept + decoder.decode(value, { stream: true })).slice(0, options.chars);
      }
      options.onText?.(kept);
    }
  })().catch(() => {});
  return {
    text: () => kept,
    done,
    async cancel() {
      await reader.cancel().catch(() => {});
    },
  };
}
