/**
 * `node:path`'s `resolve` and `relative`, anchored at `Deno.cwd()`.
 *
 * Given a relative path, `node:path` falls back to `process.cwd()`, and the
 * first touch of `process` loads Deno's Node process emulation — ~10 ms of
 * start-up that a run otherwise never pays. These pass the working
 * directory themselves, so the answers are the same and `process` is never
 * reached. Use them instead of importing `resolve` or `relative` from
 * `node:path` (a test keeps it so).
 *
 * @module
 */

import { isAbsolute, relative, resolve } from "node:path";

/** `path.resolve(...segments)`: the absolute path the segments name, from the working directory. */
export function resolvePath(...segments: string[]): string {
  return segments.some(isAbsolute) ? resolve(...segments) : resolve(Deno.cwd(), ...segments);
}

/** `path.relative(from, to)`: the path from `from` to `to`, either relative to the working directory. */
export function relativePath(from: string, to: string): string {
  return relative(resolvePath(from), resolvePath(to));
}
