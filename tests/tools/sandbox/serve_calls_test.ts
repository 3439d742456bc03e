import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, type ToolDef, toolResult } from "../../../tools/define_tool.ts";
import { callServer } from "../../../tools/sandbox/serve_calls.ts";
import type { SandboxMessage } from "../../../tools/sandbox/protocol.ts";
import { corpusOf } from "../../support/tool_context.ts";

const CORPUS = corpusOf([{ id: "a", text: "alpha" }]);

function serverWith(def: ToolDef, replies: SandboxMessage[]) {
  return callServer(new Map([[def.name, def]]), (message) => replies.push(message));
}

function resultOf(replies: readonly SandboxMessage[], index: number) {
  const reply = replies[index];
  return reply?.type === "result" ? reply.result : undefined;
}

Deno.test("serve calls: 'prepared' waits for a prepare that finishes later (a lazily loaded engine)", async () => {
  let finish = () => {};
  const loaded = new Promise<void>((resolve) => finish = resolve);
  let ready = false;
  const def = defineTool({
    name: "slow_prepare",
    description: "test",
    parameters: z.strictObject({}),
    sideEffects: "none",
    async prepare() {
      await loaded;
      ready = true;
    },
    run: () => toolResult({ output: ready ? "ready" : "not ready" }),
  }) as ToolDef;
  const replies: SandboxMessage[] = [];
  const serve = serverWith(def, replies);
  const init = serve({
    type: "init",
    corpus: CORPUS,
    now: "2026-01-01",
    prepare: ["slow_prepare"],
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(replies, [], "prepared before prepare finished");
  finish();
  await init;
  assert.deepEqual(replies, [{ type: "prepared" }]);
  await serve({
    type: "call",
    id: 1,
    tool: "slow_prepare",
    args: {},
    options: {},
    questionKey: "q",
  });
  assert.equal(resultOf(replies, 1)?.output, "ready");
});

Deno.test("serve calls: a prepare that rejects still answers 'prepared'; the call reports the failure", async () => {
  const def = defineTool({
    name: "broken_prepare",
    description: "test",
    parameters: z.strictObject({}),
    sideEffects: "none",
    // deno-lint-ignore require-await
    async prepare() {
      throw new Error("engine missing");
    },
    run: () => {
      throw new Error("engine missing");
    },
  }) as ToolDef;
  const replies: SandboxMessage[] = [];
  const serve = serverWith(def, replies);
  await serve({ type: "init", corpus: CORPUS, now: "2026-01-01", prepare: ["broken_prepare"] });
  assert.deepEqual(replies, [{ type: "prepared" }]);
  await serve({
    type: "call",
    id: 1,
    tool: "broken_prepare",
    args: {},
    options: {},
    questionKey: "q",
  });
  assert.equal(resultOf(replies, 1)?.error?.kind, "execution");
});
