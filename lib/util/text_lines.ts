/**
 * Splits a stream of text into lines (without their `\n` or `\r\n`).
 *
 * @module
 */

/** A TransformStream from text chunks to lines; a last line without a newline is emitted at the end. */
export class TextLineStream extends TransformStream<string, string> {
  constructor() {
    let rest = "";
    super({
      transform(chunk, controller) {
        rest += chunk;
        let newline: number;
        while ((newline = rest.indexOf("\n")) !== -1) {
          const line = rest.slice(0, newline);
          rest = rest.slice(newline + 1);
          controller.enqueue(line.endsWith("\r") ? line.slice(0, -1) : line);
        }
      },
      flush(controller) {
        if (rest !== "") controller.enqueue(rest);
      },
    });
  }
}
