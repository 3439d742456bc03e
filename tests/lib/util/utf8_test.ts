import assert from "node:assert/strict";
import {
  decodeUtf8,
  describeTextProblem,
  firstInvalidUtf8,
  looksBinary,
} from "../../../lib/util/utf8.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("utf8: the first invalid sequence is found whatever makes it invalid", () => {
  const cases: Array<[string, Uint8Array, number]> = [
    ["valid text", new TextEncoder().encode("aé€😀"), 10],
    ["a lone continuation byte", bytes(0x61, 0x80), 1],
    ["an overlong two-byte form", bytes(0x61, 0xc0, 0xaf), 1],
    ["an overlong three-byte form", bytes(0xe0, 0x80, 0xaf), 0],
    ["a UTF-16 surrogate", bytes(0x61, 0x62, 0xed, 0xa0, 0x80), 2],
    ["a code point past U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80), 0],
    ["a truncated sequence at the end", bytes(0x61, 0xe2, 0x82), 1],
    ["a Latin-1 byte", bytes(0x63, 0x61, 0x66, 0xe9), 3],
  ];
  for (const [name, input, offset] of cases) assert.equal(firstInvalidUtf8(input), offset, name);
});

Deno.test("utf8: decoding says byte and line, and drops a BOM", () => {
  assert.deepEqual(decodeUtf8(bytes(0x61, 0x0a, 0x62, 0x0a, 0xff)), { offset: 4, line: 3 });
  assert.deepEqual(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61)), { text: "a" });
});

Deno.test("utf8: a NUL byte in the first 8 KB makes a file binary, later ones do not", () => {
  assert.ok(looksBinary(bytes(0x7f, 0x45, 0x4c, 0x46, 0x02, 0x00)));
  const late = new Uint8Array(9000).fill(0x61);
  late[8500] = 0;
  assert.ok(!looksBinary(late));
});

Deno.test("utf8: valid bytes the decoder still refuses are text too long for one string, not bad UTF-8", () => {
  const tooLong = () => {
    throw new RangeError("failed to allocate string; buffer exceeds maximum length");
  };
  const bytes = new TextEncoder().encode('{"id": "a"}\n');
  const problem = decodeUtf8(bytes, tooLong);
  assert.deepEqual(problem, { tooLong: true, bytes: bytes.length });
  assert.equal(
    describeTextProblem({ tooLong: true, bytes: 610_377_780 }, "write it as JSONL"),
    "at 610 MB it holds more text than one string can (about 536 million characters); write it as JSONL",
  );
  // Bytes that are not UTF-8 are still reported where they are.
  const bad = new Uint8Array([0x61, 0x0a, 0xff]);
  assert.deepEqual(decodeUtf8(bad, tooLong), { offset: 2, line: 2 });
  assert.equal(
    describeTextProblem({ offset: 2, line: 2 }, "unused"),
    "it is not valid UTF-8 (byte 2, line 2); save it as UTF-8",
  );
});
