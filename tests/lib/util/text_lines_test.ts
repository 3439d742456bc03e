import assert from "node:assert/strict";
import { TextLineStream } from "../../../lib/util/text_lines.ts";

async function linesOf(chunks: string[]): Promise<string[]> {
  const stream = ReadableStream.from(chunks).pipeThrough(new TextLineStream());
  return await Array.fromAsync(stream);
}

Deno.test("TextLineStream splits lines across chunk boundaries, CRLF included, keeping a last partial line", async () => {
  assert.deepEqual(await linesOf(["a\nb", "c\r", "\nd\n\ne"]), ["a", "bc", "d", "", "e"]);
  assert.deepEqual(await linesOf(["", "x", "y", "\n"]), ["xy"]);
  assert.deepEqual(await linesOf([]), []);
});

Deno.test("TextLineStream joins a line that arrives in many chunks", async () => {
  const chunks = Array.from({ length: 5000 }, () => "ab");
  const [line, next] = await linesOf([...chunks, "\nz"]);
  assert.equal(line.length, 10_000);
  assert.equal(next, "z");
});
