import assert from "node:assert/strict";
import { createQuitHooks } from "../../../lib/cli/quit.ts";
import { RunStack } from "../../../lib/cli/run_stack.ts";

/** A run's resources as the run pushes them, recording the order they are released in. */
function runLike(stack: RunStack, released: string[]) {
  stack.use({ [Symbol.dispose]: () => void released.push("worker") });
  stack.defer(() => void released.push("embedders"));
  const tools = stack.phase();
  tools.defer(() => void released.push("plan"));
  stack.defer(() => void released.push("lock"));
  const lifted = stack.lift(tools);
  const writing = stack.phase();
  writing.defer(() => void released.push(stack.quitting ? "writer (quit notice)" : "writer"));
  return { lifted, writing };
}

Deno.test("the run's stack releases newest first, with the plan lifted above the lock it started before", async () => {
  const released: string[] = [];
  {
    await using stack = new RunStack({});
    const { lifted, writing } = runLike(stack, released);
    // The end of the questions: the writer, then the tools, before the summaries.
    await writing.disposeAsync();
    await lifted.disposeAsync();
    released.push("summaries");
  }
  assert.deepEqual(released, ["writer", "plan", "summaries", "lock", "embedders", "worker"]);
});

Deno.test("a hard quit unwinds the same stack: the quit notice, the tools, then the lock", async () => {
  const hooks = createQuitHooks();
  const released: string[] = [];
  const stack = new RunStack({ onQuit: hooks.onQuit });
  runLike(stack, released);
  assert.equal(stack.quitting, false);
  await hooks.run("SIGTERM");
  assert.equal(stack.quitting, true);
  assert.deepEqual(released, ["writer (quit notice)", "plan", "lock", "embedders", "worker"]);
  // The run's own end afterwards (it never comes after a hard quit, but must be harmless) does
  // nothing twice.
  await stack[Symbol.asyncDispose]();
  assert.equal(released.length, 5);
});

Deno.test("a hard quit during the run's own unwinding waits for it, and nothing is released twice", async () => {
  const hooks = createQuitHooks();
  const released: string[] = [];
  let resume!: () => void;
  const stack = new RunStack({ onQuit: hooks.onQuit });
  stack.defer(() => void released.push("lock"));
  stack.defer(async () => {
    await new Promise<void>((r) => resume = r);
    released.push("plan");
  });
  const ending = stack[Symbol.asyncDispose]();
  const quitting = hooks.run("SIGTERM").then(() => [...released]);
  setTimeout(() => resume(), 20);
  assert.deepEqual(
    await quitting,
    ["plan", "lock"],
    "the hook waited for the unwinding in progress",
  );
  await ending;
  assert.deepEqual(released, ["plan", "lock"]);
});

Deno.test("the run's end unregisters its hard-quit hook", async () => {
  const hooks = createQuitHooks();
  const released: string[] = [];
  {
    await using stack = new RunStack({ onQuit: hooks.onQuit });
    stack.defer(() => void released.push("lock"));
  }
  await hooks.run("SIGTERM");
  assert.deepEqual(released, ["lock"]);
});
