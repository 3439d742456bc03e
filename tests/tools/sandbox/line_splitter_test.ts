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
