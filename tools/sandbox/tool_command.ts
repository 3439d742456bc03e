/**
 * What a custom tool's process is started with: which tool, and the
 * command line that runs it under the least permissions its side effects
 * need (its environment: `child_env.ts`). The same command line, with the
 * plug-in's declared permissions instead, runs a plug-in's tool; with the
 * hidden command `__system-host`, a custom system (`systems/custom/`).
 *
 * @module
 */

import { fileURLToPath, pathToFileURL } from "../../lib/util/paths.ts";
import type { SideEffects } from "../../lib/types.ts";
import { SYSTEM_HOST_COMMAND, TOOL_HOST_COMMAND } from "./child_watchdog.ts";
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
  /**
   * A plug-in's tool (`tools.plugins`): the permissions it declared, granted
   * instead of those of `sideEffects`; the module's exported tool is found by
   * its own name (`exportName` is then `*`), and the process runs with the
   * lock file frozen (a plug-in's packages must be locked and cached).
   */
  permissions?: SandboxPermissions;
  /** Run as a custom system's process (`__system-host`) instead of a tool's. */
  system?: boolean;
  /** What load errors call it (default: `custom tool "NAME" from "MODULE#EXPORT"`). */
  label?: string;
}

/** Permissions a plug-in declares: paths it reads and writes, hosts it reaches, variables. */
export interface SandboxPermissions {
  read?: readonly string[];
  write?: readonly string[];
  net?: readonly string[];
  env?: readonly string[];
}

/** The permission names a process keeps after loading, as its command line passes them. */
export function keptPermissions(spec: Pick<CustomToolSpec, "sideEffects" | "permissions">): string {
  if (spec.permissions === undefined) return spec.sideEffects;
  const kept = (["read", "write", "net", "env"] as const).filter((name) =>
    (spec.permissions?.[name]?.length ?? 0) > 0
  );
  return `keep=${kept.join(",")}`;
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
    spec.system ? SYSTEM_HOST_COMMAND : TOOL_HOST_COMMAND,
    moduleUrl(spec.module),
    spec.exportName,
    keptPermissions(spec),
    spec.name,
  ];
  if (!isDenoExecutable(Deno.execPath())) return host;
  const flags = [
    "--no-prompt",
    // A plug-in's packages are checked against the lock file (runs never download or re-resolve).
    // So is a custom system's graph: it reaches ragbench's own npm packages (the engines' clients),
    // and without the lock Deno would resolve their ranges to versions the cache may not hold.
    spec.permissions || spec.system ? "--frozen" : "--no-lock",
    "--cached-only",
    "--no-remote",
    `--config=${fileURLToPath(DENO_CONFIG)}`,
    `--v8-flags=${v8Flags(spec.memoryMb ?? DEFAULT_MEMORY_MB)}`,
    `--preload=${fileURLToPath(WATCHDOG)}`,
    `--preload=${spec.module}`,
  ];
  if (spec.permissions) {
    for (const name of ["read", "write", "net", "env"] as const) {
      const values = spec.permissions[name] ?? [];
      if (values.length) flags.push(`--allow-${name}=${values.join(",")}`);
    }
  } else if (spec.sideEffects === "filesystem") {
    flags.push(`--allow-read=${Deno.cwd()}`, `--allow-write=${Deno.cwd()}`);
  } else if (spec.sideEffects === "network") flags.push("--allow-net");
  return ["run", ...flags, fileURLToPath(MAIN), ...host];
}

/** The URL a module is imported by: a path's `file:` URL, a package specifier (`npm:`) as is. */
export function moduleUrl(module: string): string {
  return /^(npm|jsr):/.test(module) ? module : pathToFileURL(module).href;
}
