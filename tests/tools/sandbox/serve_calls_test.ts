import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool, type ToolDef, toolResult } from "../../../tools/define_tool.ts";
import { callServer } from "../../../tools/sandbox/serve_calls.ts";
import type { SandboxMessage } from "../../../tools/sandbox/protocol.ts";
import { corpusOf } from "../../support/tool_context.ts";

const CORPUS = corpusOf([{ id: "a", text: "alpha" }]);

/** A server of one probe tool with `prepare` and `run`; `init()` and `call()` drive it. */
function probeServer(parts: Pick<ToolDef, "prepare" | "run">) {
  const def = defineTool({
    name: "probe",
    description: "test",
    parameters: z.strictObject({}),
    sideEffects: "none",
    ...parts,
  }) as ToolDef;
  const replies: SandboxMessage[] = [];
  const serve = callServer(new Map([[def.name, def]]), (message) => replies.push(message));
  return {
    replies,
    init: () => serve({ type: "init", corpus: CORPUS, now: "2026-01-01", prepare: ["probe"] }),
    async call() {
      await serve({ type: "call", id: 1, tool: "probe", args: {}, options: {}, questionKey: "q" });
      const reply = replies.at(-1);
      return reply?.type === "result" ? reply.result : undefined;
    },
  };
}

Deno.test("serve calls: 'prepared' waits for a prepare that finishes later (a lazily loaded engine)", async () => {
  let finish = () => {};
  const loaded = new Promise<void>((resolve) => finish = resolve);
  let ready = false;
  const server = probeServer({
    async prepare() {
      await loaded;
      ready = true;
    },
    run: () => toolResult({ output: ready ? "ready" : "not ready" }),
  });
  const init = server.init();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(server.replies, [], "prepared before prepare finished");
  finish();
  await init;
  assert.deepEqual(server.replies, [{ type: "prepared" }]);
  assert.equal((await server.call())?.output, "ready");
});

Deno.test("serve calls: a prepare that rejects still answers 'prepared'; the call reports the failure", async () => {
  const server = probeServer({
    // deno-lint-ignore require-await
    async prepare() {
      throw new Error("engine missing");
    },
    run: () => {
      throw new Error("engine missing");
    },
  });
  await server.init();
  assert.deepEqual(server.replies, [{ type: "prepared" }]);
  assert.equal((await server.call())?.error?.kind, "execution");
});
