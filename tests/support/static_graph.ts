/**
 * The modules an entry point loads before any of its code runs (its static
 * imports, transitively), from `deno info --json`: for tests that keep heavy
 * modules out of a start-up path.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** Specifiers of every module `entry` (a path from the repository root) loads statically. */
export async function staticGraph(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: InfoModule[];
  };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>(info.roots);
  const pending = [...info.roots];
  while (pending.length > 0) {
    for (const dep of modules.get(pending.pop()!)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (dep.isDynamic || !target || seen.has(target)) continue;
      seen.add(target);
      pending.push(target);
    }
  }
  return seen;
}
