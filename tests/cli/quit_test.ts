import assert from "node:assert/strict";
import { createQuitHooks, QUIT_EXIT_CODES } from "../../lib/cli/quit.ts";

Deno.test("quit hooks run newest first, get the reason, and a throwing one does not stop the rest", async () => {
  const hooks = createQuitHooks();
  const calls: string[] = [];
  hooks.onQuit((r) => void calls.push(`first ${r}`));
  hooks.onQuit(() => {
    throw new Error("broken hook");
  });
  const off = hooks.onQuit(() => void calls.push("removed"));
  hooks.onQuit(async (r) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    calls.push(`last ${r}`);
  });
  off();
  await hooks.run("SIGTERM");
  assert.deepEqual(calls, ["last SIGTERM", "first SIGTERM"]);
});

Deno.test("quit hooks: one that never settles cannot hold the quit past its deadline", async () => {
  const hooks = createQuitHooks();
  hooks.onQuit(() => new Promise(() => {}));
  const started = performance.now();
  await hooks.run("SIGHUP", 50);
  const waited = performance.now() - started;
  assert.ok(waited >= 45, `waited ${waited} ms`);
});

Deno.test("quit exit codes are 128 + the signal number", () => {
  assert.deepEqual([...QUIT_EXIT_CODES], [["SIGINT", 130], ["SIGHUP", 129], ["SIGTERM", 143]]);
});
