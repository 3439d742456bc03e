/**
 * Splits a stream of text into lines (without their `\n` or `\r\n`).
 *
 * @module
 */

/**
 * A TransformStream from text chunks to lines; a last line without a newline is emitted at the end.
 * Each chunk is scanned once, so a very long line arriving in many chunks costs linear time (the
 * input may be hostile: a tool's output, a data set's line).
 */
export class TextLineStream extends TransformStream<string, string> {
  constructor() {
    let rest = "";
    super({
      transform(chunk, controller) {
        let start = 0;
        let newline: number;
        while ((newline = chunk.indexOf("\n", start)) !== -1) {
          const line = rest + chunk.slice(start, newline);
          rest = "";
          start = newline + 1;
          controller.enqueue(line.endsWith("\r") ? line.slice(0, -1) : line);
        }
        rest += chunk.slice(start);
      },
      flush(controller) {
        if (rest !== "") controller.enqueue(rest);
      },
    });
  }
}
