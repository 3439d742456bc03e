/**
 * What a custom tool's process is started with: which tool, and the
 * command line that runs it under the least permissions its side effects
 * need (its environment: `child_env.ts`).
 *
 * @module
 */

import { fileURLToPath, pathToFileURL } from "../../lib/util/paths.ts";
import type { SideEffects } from "../../lib/types.ts";
import { TOOL_HOST_COMMAND } from "./child_watchdog.ts";
import { isDenoExecutable, v8Flags } from "./child_env.ts";

const MAIN = new URL("../../main.ts", import.meta.url);
const DENO_CONFIG = new URL("../../deno.json", import.meta.url);
const WATCHDOG = new URL("./child_watchdog.ts", import.meta.url);

/** A tool process's V8 heap cap when the config sets no `memory_mb`, in MB. */
export const DEFAULT_MEMORY_MB = 1024;

/** Which custom tool to run, and how. */
export interface CustomToolSpec {
  /** The name the model calls it by (the config's `name`). */
  name: string;
  /** Absolute path of the module. */
  module: string;
  exportName: string;
  sideEffects: SideEffects;
  /** Overrides the module's own description. */
  description?: string;
  /** V8 heap cap of each process, in MB (default `DEFAULT_MEMORY_MB`). */
  memoryMb?: number;
}

/**
 * The child's command line: under `deno run`, the least permission flags for
 * the tool's side effects, the watchdog preloaded first, then the module
 * preloaded under those flags, and the V8 heap cap. A compiled binary (whose
 * permissions are fixed when it is built) runs itself; the child imports the
 * module, then drops the permissions its side effects do not need (its heap
 * cap comes through `DENO_V8_FLAGS`).
 */
export function childArgs(spec: CustomToolSpec): string[] {
  const host = [
    TOOL_HOST_COMMAND,
    pathToFileURL(spec.module).href,
    spec.exportName,
    spec.sideEffects,
    spec.name,
  ];
  if (!isDenoExecutable(Deno.execPath())) return host;
  const flags = [
    "--no-prompt",
    "--no-lock",
    "--cached-only",
    "--no-remote",
    `--config=${fileURLToPath(DENO_CONFIG)}`,
    `--v8-flags=${v8Flags(spec.memoryMb ?? DEFAULT_MEMORY_MB)}`,
    `--preload=${fileURLToPath(WATCHDOG)}`,
    `--preload=${spec.module}`,
  ];
  if (spec.sideEffects === "filesystem") {
    flags.push(`--allow-read=${Deno.cwd()}`, `--allow-write=${Deno.cwd()}`);
  }
  if (spec.sideEffects === "network") flags.push("--allow-net");
  return ["run", ...flags, fileURLToPath(MAIN), ...host];
}
