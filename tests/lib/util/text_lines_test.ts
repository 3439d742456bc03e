import assert from "node:assert/strict";
import { eachLine } from "../../../lib/util/byte_lines.ts";
import { eachTextLine } from "../../../lib/util/text_lines.ts";

/** A file of `bytes` read `step` bytes at a time at most (a short read, as a pipe may give). */
function fileOf(bytes: Uint8Array, step = Infinity) {
  let at = 0;
  return {
    readSync(into: Uint8Array): number | null {
      if (at >= bytes.length) return null;
      const n = Math.min(into.length, step, bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      return n;
    },
  };
}

function textLines(bytes: Uint8Array, step?: number) {
  const lines: Array<[string, number]> = [];
  const read = eachTextLine(fileOf(bytes, step), (text, n) => lines.push([text, n]));
  return { lines, read };
}

Deno.test("text lines: the same lines, numbers and end as the byte reader, across reads, long lines and multi-byte characters", () => {
  const long = "é".repeat(700_000); // 1.4 MB: longer than a read
  const text = `a\n\n${long}\r\n{"x":"€"}\n${"z".repeat(1_048_570)}ü\nlast without newline é`;
  const bytes = new TextEncoder().encode(text);
  for (const step of [Infinity, 1_048_575, 7_777]) {
    const { lines, read } = textLines(bytes, step);
    const expected: Array<[string, number]> = [];
    const decoder = new TextDecoder();
    const byBytes = eachLine(fileOf(bytes), (b, _o, n) => expected.push([decoder.decode(b), n]));
    assert.deepEqual(lines, expected, `reads of ${step}`);
    assert.deepEqual(read, byBytes);
    assert.equal(lines[2][0], long + "\r");
    assert.equal(read.unfinished, new TextEncoder().encode("last without newline é").length);
  }
});

Deno.test("text lines: invalid UTF-8 becomes U+FFFD, a file that ends with its newline has nothing unfinished", () => {
  const bytes = new Uint8Array([0x61, 0xff, 0x0a, 0x62, 0x0a]);
  const { lines, read } = textLines(bytes);
  assert.deepEqual(lines, [["a\uFFFD", 1], ["b", 2]]);
  assert.deepEqual(read, { end: 5, unfinished: 0 });
  assert.deepEqual(textLines(new Uint8Array(0)), { lines: [], read: { end: 0, unfinished: 0 } });
});
