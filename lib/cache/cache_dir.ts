/**
 * Where ragbench keeps what is worth keeping between runs: embeddings now
 * (`embeddings-v1.sqlite`), recorded model and tool responses later. One
 * folder serves them all, found in this order:
 *
 * 1. `--cache-dir DIR` on the command line;
 * 2. `$RAGBENCH_CACHE_DIR`;
 * 3. `$XDG_CACHE_HOME/ragbench` (ignored unless absolute, as the XDG spec says);
 * 4. `$HOME/.cache/ragbench`.
 *
 * Relative paths (1, 2) are resolved against the current folder. Only the
 * variables consulted are read, in that order, and {@link resolveCacheDir}
 * says which, so `ragbench permissions` can print the `--allow-env` they need.
 *
 * @module
 */

import { isAbsolute, join, resolvePath } from "../util/paths.ts";
import { RagbenchError } from "../errors.ts";

/** The environment variables that may locate the cache folder, in the order consulted. */
export const CACHE_DIR_VARIABLES = ["RAGBENCH_CACHE_DIR", "XDG_CACHE_HOME", "HOME"] as const;

/** File name of the embedding cache inside the cache folder (the version changes with the layout). */
export const EMBEDDING_CACHE_FILE = "embeddings-v1.sqlite";

/** The cache folder and how it was found. */
export interface CacheDir {
  /** Absolute path of the folder (it may not exist yet). */
  dir: string;
  /** What decided it: `--cache-dir` or the variable used. */
  from: "--cache-dir" | typeof CACHE_DIR_VARIABLES[number];
  /** The variables read to find it, in order (empty with `--cache-dir`). */
  variablesRead: string[];
}

/** Reads one environment variable; undefined when unset. */
export type EnvReader = (name: string) => string | undefined;

/**
 * Finds the cache folder (see the module docs). `env` defaults to `Deno.env.get`.
 *
 * @throws {RagbenchError} ("permission") when a variable it must consult may
 *   not be read, and ("usage") when none of them is set.
 */
export function resolveCacheDir(flag: string | undefined, env: EnvReader = readEnv): CacheDir {
  const cwd = Deno.cwd();
  if (flag !== undefined && flag !== "") {
    return { dir: resolvePath(cwd, flag), from: "--cache-dir", variablesRead: [] };
  }
  const variablesRead: string[] = [];
  const read = (name: string) => {
    variablesRead.push(name);
    const value = env(name);
    return value === undefined || value === "" ? undefined : value;
  };
  const own = read("RAGBENCH_CACHE_DIR");
  if (own !== undefined) {
    return { dir: resolvePath(cwd, own), from: "RAGBENCH_CACHE_DIR", variablesRead };
  }
  const xdg = read("XDG_CACHE_HOME");
  if (xdg !== undefined && isAbsolute(xdg)) {
    return { dir: join(xdg, "ragbench"), from: "XDG_CACHE_HOME", variablesRead };
  }
  const home = read("HOME");
  if (home !== undefined) {
    return { dir: join(resolvePath(cwd, home), ".cache", "ragbench"), from: "HOME", variablesRead };
  }
  throw new RagbenchError(
    "usage",
    "Cannot find a folder for the embedding cache: none of RAGBENCH_CACHE_DIR, " +
      "XDG_CACHE_HOME (absolute) or HOME is set. Give one with --cache-dir DIR.",
  );
}

function readEnv(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    throw new RagbenchError(
      "permission",
      `Cannot find the cache folder: reading $${name} needs --allow-env=${
        CACHE_DIR_VARIABLES.join(",")
      }; or give the folder with --cache-dir DIR.`,
    );
  }
  return Deno.env.get(name);
}
