/**
 * The environment every MCP command server gets besides its own `env`: the
 * variables the SDK's stdio transport passes by default
 * (`getDefaultEnvironment`, POSIX list). Kept apart from the transport so
 * that `ragbench permissions` can name them without loading the SDK.
 *
 * @module
 */

/** Variables passed to a command server by default. */
export const DEFAULT_ENV_VARS = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"] as const;

/** The default variables that this process may read and has set. */
export function defaultEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of DEFAULT_ENV_VARS) {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") continue;
    const value = Deno.env.get(name);
    // Like the SDK: never pass a shell function definition on.
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return env;
}
