import assert from "node:assert/strict";
import { byteLines, eachLine, type ReadableFile } from "../../../lib/util/byte_lines.ts";

/** A file that hands out at most `step` bytes a read, so lines cross reads everywhere. */
function fileOf(text: string, step: number): ReadableFile {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return {
    readSync(into) {
      if (at >= bytes.length) return null;
      const n = Math.min(step, into.length, bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
  };
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("byteLines gives each line with its byte offset and number, across reads of any size", () => {
  const text = "é one\n\ntwo\r\nthree ü\nunfinished";
  for (const step of [1, 2, 3, 7, 1 << 20]) {
    const seen: Array<[string, number, number]> = [];
    const read = eachLine(fileOf(text, step), (bytes, offset, number) => {
      seen.push([decode(bytes), offset, number]);
    });
    assert.deepEqual(
      seen,
      [["é one", 0, 1], ["", 7, 2], ["two\r", 8, 3], ["three ü", 13, 4]],
      `${step}`,
    );
    assert.deepEqual(read, { end: 22, unfinished: 10 });
  }
});

Deno.test("byteLines passes on a last line without a newline only with unfinished", () => {
  // Each line's bytes are a view valid until the next line is asked for: read them in the loop.
  const lines: Array<[string, number, number]> = [];
  for (const l of byteLines(fileOf("a\nlast", 2), { unfinished: true })) {
    lines.push([decode(l.bytes), l.offset, l.number]);
  }
  assert.deepEqual(lines, [["a", 0, 1], ["last", 2, 2]]);
  assert.deepEqual([...byteLines(fileOf("", 4))], []);
  assert.deepEqual(eachLine(fileOf("x\n", 4), () => {}), { end: 2, unfinished: 0 });
});

Deno.test("byteLines shows the first read to onFirstChunk before any line, and stops at its error", () => {
  const order: string[] = [];
  eachLine(fileOf("ab\ncd\n", 4), (bytes) => order.push(decode(bytes)), {
    onFirstChunk: (bytes) => order.push(`first:${decode(bytes)}`),
  });
  assert.deepEqual(order, ["first:ab\nc", "ab", "cd"]);
  assert.throws(
    () =>
      eachLine(fileOf("\0binary\n", 4), () => assert.fail("no line after a refused first read"), {
        onFirstChunk: (bytes) => {
          if (bytes.includes(0)) throw new Error("binary");
        },
      }),
    /binary/,
  );
});
