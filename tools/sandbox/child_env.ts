/**
 * The environment of a sandbox process (a custom tool's, the code agent's):
 * cleared, but for what Deno itself needs (its cache and certificate
 * settings, and proxy settings for network tools), and only what ragbench
 * was allowed to read. Also how to tell the deno CLI from a compiled
 * ragbench, which cannot start `deno run`.
 *
 * @module
 */

import type { SideEffects } from "../../lib/types.ts";

/** Variables passed to every tool process (Deno's cache and TLS settings), when set. */
export const PASSED_ENV = ["DENO_DIR", "DENO_CERT", "SSL_CERT_FILE", "SSL_CERT_DIR"];
/** Also passed to network tools. */
export const PASSED_NETWORK_ENV = [
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
];

/**
 * The cleared environment of a tool process: only what Deno needs, and only
 * if readable here; `extra` names variables a plug-in declared (`permissions.env`).
 */
export function childEnv(
  sideEffects: SideEffects,
  memoryMb?: number,
  extra: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  if (memoryMb !== undefined && !isDenoExecutable(Deno.execPath())) {
    env.DENO_V8_FLAGS = v8Flags(memoryMb);
  }
  const names = [
    ...(sideEffects === "network" ? [...PASSED_ENV, ...PASSED_NETWORK_ENV] : PASSED_ENV),
    ...extra,
  ];
  for (const variable of names) {
    if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") continue;
    const value = Deno.env.get(variable);
    if (value !== undefined) env[variable] = value;
  }
  return env;
}

/** The V8 flag that caps the heap at `memoryMb`. */
export function v8Flags(memoryMb: number): string {
  return `--max-old-space-size=${memoryMb}`;
}

/** True when `path` is the deno CLI (not a `deno compile`d binary). */
export function isDenoExecutable(path: string): boolean {
  const name = path.split(/[\\/]/).pop() ?? "";
  return /^deno(\.exe)?$/i.test(name);
}
