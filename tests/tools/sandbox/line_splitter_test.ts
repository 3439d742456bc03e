import assert from "node:assert/strict";
import { type LineEvent, lineSplitter } from "../../../tools/sandbox/line_splitter.ts";

function split(chunks: string[], max = Infinity): LineEvent[] {
  const events: LineEvent[] = [];
  const splitter = lineSplitter(max, (e) => events.push(e));
  const encoder = new TextEncoder();
  for (const chunk of chunks) splitter.push(encoder.encode(chunk));
  splitter.end();
  return events;
}

const line = (text: string): LineEvent => ({ type: "line", text });

Deno.test("line splitter: lines split across chunks, CRLF and a last line without newline", () => {
  assert.deepEqual(split(["ab", "c\nde", "f\r\n\ng", "h"]), [
    line("abc"),
    line("def"),
    line(""),
    line("gh"),
  ]);
});

Deno.test("line splitter: a character split between chunks is decoded whole", () => {
  const bytes = new TextEncoder().encode("café\n");
  const events: LineEvent[] = [];
  const splitter = lineSplitter(Infinity, (e) => events.push(e));
  splitter.push(bytes.subarray(0, 4));
  splitter.push(bytes.subarray(4));
  assert.deepEqual(events, [line("café")]);
});

Deno.test("line splitter: a line over the cap is reported once and skipped; the next line is read", () => {
  assert.deepEqual(split(["12345", "6789", "0\nok\n"], 8), [
    { type: "too_long", limit: 8 },
    line("ok"),
  ]);
  assert.deepEqual(split(["12345678\n"], 8), [line("12345678")]);
});

Deno.test("line splitter: the chunk it was given may be reused by the stream afterwards", () => {
  const events: LineEvent[] = [];
  const splitter = lineSplitter(Infinity, (e) => events.push(e));
  const buffer = new TextEncoder().encode("abc");
  splitter.push(buffer);
  buffer.set(new TextEncoder().encode("xyz"));
  splitter.push(new TextEncoder().encode("\n"));
  assert.deepEqual(events, [line("abc")]);
});

Deno.test("line splitter: a cap in characters counts the decoded text, not its bytes", () => {
  const events: LineEvent[] = [];
  const splitter = lineSplitter(3, (e) => events.push(e), "chars");
  splitter.push(new TextEncoder().encode("ééé\néééé\nok\n"));
  assert.deepEqual(events, [line("ééé"), { type: "too_long", limit: 3 }, line("ok")]);
});

Deno.test("line splitter: a program that replaces the built-ins it uses after it was made does not break it", () => {
  const events: LineEvent[] = [];
  const splitter = lineSplitter(Infinity, (e) => events[events.length] = e);
  const chunks = ["ab", "c\r\nd\n"].map((c) => new TextEncoder().encode(c));
  const saved = {
    indexOf: Uint8Array.prototype.indexOf,
    subarray: Uint8Array.prototype.subarray,
    decode: TextDecoder.prototype.decode,
    slice: String.prototype.slice,
    push: Array.prototype.push,
  };
  const broken = () => {
    throw new Error("replaced");
  };
  try {
    Uint8Array.prototype.indexOf = broken;
    Uint8Array.prototype.subarray = broken;
    TextDecoder.prototype.decode = broken;
    String.prototype.slice = broken;
    Array.prototype.push = broken;
    for (const chunk of chunks) splitter.push(chunk);
  } finally {
    Object.assign(Uint8Array.prototype, { indexOf: saved.indexOf, subarray: saved.subarray });
    TextDecoder.prototype.decode = saved.decode;
    String.prototype.slice = saved.slice;
    Array.prototype.push = saved.push;
  }
  assert.deepEqual(events, [line("abc"), line("d")]);
});
