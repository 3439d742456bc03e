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

/** Async loads in progress while `process.env` is emptied, and the property they restore. */
let emptiedBy = 0;
let savedEnv: PropertyDescriptor | undefined;

/**
 * Loads a module (or runs async `load`) while `process.env` is an empty
 * object: for libraries that read the environment while their modules load
 * (the search engines' official clients list every variable through the
 * `debug` package, which needs `--allow-env` with no list). Code running
 * meanwhile on the event loop sees the empty object too, which is what
 * ragbench wants of any library anyway. Overlapping calls share one swap:
 * the real object comes back when the last one ends.
 */
export async function withoutEnvironmentAsync<T>(load: () => Promise<T>): Promise<T> {
  const process = nodeProcess();
  if (emptiedBy === 0) {
    const original = Object.getOwnPropertyDescriptor(process, "env");
    if (original === undefined || !original.configurable) return await load();
    savedEnv = original;
    Object.defineProperty(process, "env", {
      value: {},
      configurable: true,
      enumerable: original.enumerable,
      writable: true,
    });
  }
  emptiedBy++;
  try {
    return await load();
  } finally {
    if (--emptiedBy === 0 && savedEnv !== undefined) {
      Object.defineProperty(process, "env", savedEnv);
      savedEnv = undefined;
    }
  }
}
