import assert from "node:assert/strict";
import { keepText, pipeLines } from "../../../tools/sandbox/child_pipes.ts";
import type { LineEvent } from "../../../tools/sandbox/line_splitter.ts";

/** A stream of `chunks` (text, encoded), ending after the last unless `open`. */
function streamOf(chunks: string[], open = false): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!open) controller.close();
    },
  });
}

async function all(lines: { next(): Promise<LineEvent | null> }): Promise<LineEvent[]> {
  const events: LineEvent[] = [];
  for (let e = await lines.next(); e !== null; e = await lines.next()) events.push(e);
  return events;
}

const line = (text: string): LineEvent => ({ type: "line", text });

Deno.test("pipe lines: lines across chunks; a last piece without its newline is not a line", async () => {
  const events = await all(pipeLines(streamOf(["ab", "c\r\nd", "e\n\nf"]), 100, "bytes"));
  assert.deepEqual(events, [line("abc"), line("de"), line("")]);
});

Deno.test("pipe lines: the cap counts bytes or characters, as asked; reading goes on after a long line", async () => {
  // "é" is one character, two bytes.
  const text = ["é".repeat(6) + "\n", "ok\n"];
  assert.deepEqual(await all(pipeLines(streamOf(text), 8, "chars")), [
    line("éééééé"),
    line("ok"),
  ]);
  assert.deepEqual(await all(pipeLines(streamOf(text), 8, "bytes")), [
    { type: "too_long", limit: 8 },
    line("ok"),
  ]);
});

Deno.test("pipe lines: calls made together are answered in order, and cancel ends the reading", async () => {
  const lines = pipeLines(streamOf(["one\ntwo\n", "three\n"], true), 100, "bytes");
  const [a, b, c] = await Promise.all([lines.next(), lines.next(), lines.next()]);
  assert.deepEqual([a, b, c], [line("one"), line("two"), line("three")]);
  const waiting = lines.next();
  await lines.cancel();
  assert.equal(await waiting, null);
  assert.equal(await lines.next(), null);
});

Deno.test("kept text: the first or the last characters of a pipe, read to its end", async () => {
  const chunks = ["abc", "déf", "ghi"];
  const head = keepText(streamOf(chunks), { chars: 4, keep: "head" });
  const seen: string[] = [];
  const tail = keepText(streamOf(chunks), { chars: 4, keep: "tail", onText: (t) => seen.push(t) });
  await Promise.all([head.done, tail.done]);
  assert.equal(head.text(), "abcd");
  assert.equal(tail.text(), "fghi");
  assert.deepEqual(seen, ["abc", "cdéf", "fghi"]);
});

Deno.test("kept text: cancel ends the reading of a pipe that never ends", async () => {
  const kept = keepText(streamOf(["still open"], true), { chars: 100, keep: "head" });
  await new Promise((r) => setTimeout(r, 10));
  await kept.cancel();
  await kept.done;
  assert.equal(kept.text(), "still open");
});
