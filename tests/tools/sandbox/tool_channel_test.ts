import assert from "node:assert/strict";
import type { TrackedChild } from "../../../lib/util/child_registry.ts";
import { ToolChannel } from "../../../tools/sandbox/tool_channel.ts";
import { MAX_REPLY_BYTES } from "../../../tools/sandbox/tool_reply.ts";

/** A stand-in for a tool process: what the host sends it, and its stdout to write replies to. */
function fakeProcess() {
  const sent: Array<Record<string, unknown>> = [];
  const stdout = new TransformStream<Uint8Array, Uint8Array>();
  const writer = stdout.writable.getWriter();
  const decoder = new TextDecoder();
  const stdin = new WritableStream<Uint8Array>({
    write(chunk) {
      for (const line of decoder.decode(chunk).split("\n")) if (line) sent.push(JSON.parse(line));
    },
  });
  const child = { stdin, stdout: stdout.readable } as unknown as TrackedChild;
  const write = (text: string) => writer.write(new TextEncoder().encode(text));
  return { child, sent, write, end: () => writer.close() };
}

/** The nonce of request number `n` (from 1), once it was sent. */
async function nonceOf(sent: Array<Record<string, unknown>>, n = 1): Promise<string> {
  for (let i = 0; i < 1000 && sent.length < n; i++) await new Promise((r) => setTimeout(r, 1));
  return String(sent[n - 1]?.nonce);
}

Deno.test("tool channel: the reply carrying the request's nonce answers it; requests then go on", async () => {
  const p = fakeProcess();
  const channel = new ToolChannel(p.child, () => assert.fail("no breach"));
  for (const id of [1, 2]) {
    const reply = channel.request({ type: "cancel", id });
    const nonce = await nonceOf(p.sent, id);
    assert.equal(p.sent.at(-1)?.id, id);
    await p.write(`\n${JSON.stringify({ type: "prepared", nonce })}\n`);
    assert.deepEqual(await reply, { kind: "message", message: { type: "prepared", nonce } });
  }
  await p.end();
});

Deno.test("tool channel: a line that is not the awaited reply breaks it for good, telling its owner once", async () => {
  const p = fakeProcess();
  let breaches = 0;
  const channel = new ToolChannel(p.child, () => breaches++);
  const reply = channel.request({ type: "cancel", id: 1 });
  await nonceOf(p.sent);
  await p.write(`${JSON.stringify({ type: "prepared", nonce: "forged" })}\nnot json\n`);
  assert.deepEqual(await reply, { kind: "stray" });
  assert.deepEqual(await channel.request({ type: "cancel", id: 2 }), { kind: "stray" });
  await p.end();
  assert.deepEqual(await channel.request({ type: "cancel", id: 3 }), { kind: "stray" });
  assert.equal(breaches, 1);
});

Deno.test("tool channel: a reply over the cap is too_big; an ended stdout is an exit", async () => {
  const big = fakeProcess();
  let breaches = 0;
  const channel = new ToolChannel(big.child, () => breaches++);
  const reply = channel.request({ type: "cancel", id: 1 });
  await nonceOf(big.sent);
  await big.write("x".repeat(MAX_REPLY_BYTES + 1));
  assert.deepEqual(await reply, { kind: "too_big" });
  assert.equal(breaches, 1);
  await big.end();

  const gone = fakeProcess();
  const quiet = new ToolChannel(gone.child, () => assert.fail("an exit is no breach"));
  const waiting = quiet.request({ type: "cancel", id: 1 });
  await gone.end();
  assert.deepEqual(await waiting, { kind: "exited" });
  assert.deepEqual(await quiet.request({ type: "cancel", id: 2 }), { kind: "exited" });
});

Deno.test("tool channel: a second request while one waits is a bug in the host", async () => {
  const p = fakeProcess();
  const channel = new ToolChannel(p.child, () => {});
  void channel.request({ type: "cancel", id: 1 });
  assert.throws(() => channel.request({ type: "cancel", id: 2 }), TypeError);
  await p.end();
});
