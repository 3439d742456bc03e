/**
 * Temporary folders for tests, removed when the test ends.
 *
 * @module
 */

import { dirname, join } from "node:path";

/** A fresh folder with `files` (relative path → text) written into it; remove it with `using`. */
export async function tempTree(
  files: Record<string, string> = {},
): Promise<{ dir: string; path(rel: string): string; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "ragbench_test_" });
  for (const [rel, text] of Object.entries(files)) {
    const full = join(dir, rel);
    await Deno.mkdir(dirname(full), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
  return {
    dir,
    path: (rel: string) => join(dir, rel),
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
