/**
 * Runs code with an empty, private `process.env`.
 *
 * Some dependencies read switches from the environment while they work:
 * `yaml` reads `LOG_TOKENS` and `LOG_STREAM` on every parse, and the OpenAI
 * SDK's constructor reads `OPENAI_*` variables for every option it is not
 * given. Under Deno's permission model such a read throws (or prompts)
 * unless `--allow-env` names the variable, and a variable set on a user's
 * machine would silently change their behaviour. ragbench passes every
 * setting explicitly and reads the environment only through `Deno.env`, for
 * variables a config names; the calls into those libraries go through this.
 *
 * @module
 */

import type nodeProcessModule from "node:process";

/**
 * Node's `process` object, reached only when this is called. It is never
 * imported: the first touch of `process` loads Deno's Node process emulation
 * (~10 ms), which a run should pay only when it uses a library that needs
 * it, not at start-up.
 */
export function nodeProcess(): typeof nodeProcessModule {
  return (globalThis as unknown as { process: typeof nodeProcessModule }).process;
}

/** Calls `fn` (synchronous) while `process.env` is an empty object, then puts it back. */
export function withoutEnvironment<T>(fn: () => T): T {
  const process = nodeProcess();
  const original = Object.getOwnPropertyDescriptor(process, "env");
  if (original === undefined || !original.configurable) return fn();
  Object.defineProperty(process, "env", {
    value: {},
    configurable: true,
    enumerable: original.enumerable,
    writable: true,
  });
  try {
    return fn();
  } finally {
    Object.defineProperty(process, "env", original);
  }
}
