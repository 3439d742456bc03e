/**
 * Gives npm packages an empty, private `process.env`.
 *
 * Some dependencies read debug switches from the environment while they work
 * (`yaml` reads `LOG_TOKENS` and `LOG_STREAM` on every parse). Under Deno's
 * permission model that read throws unless `--allow-env` names the variable,
 * and a debug variable set on a user's machine would change their behaviour.
 * ragbench passes every setting to its dependencies explicitly and reads the
 * environment only through `Deno.env` for variables a config names, so
 * packages see an empty object instead. Import this module for its effect,
 * before any package that reads `process.env` runs.
 *
 * @module
 */

import process from "node:process";

if (!Object.hasOwn(process, "ragbenchIsolatedEnv")) {
  Object.defineProperty(process, "env", { value: {}, writable: true, configurable: true });
  Object.defineProperty(process, "ragbenchIsolatedEnv", { value: true });
}
