import assert from "node:assert/strict";
import { REPO_ROOT, sourceFiles } from "../support/import_graph.ts";

/** Lines a hand-written source file may have (CONVENTIONS.md: one concept a file, ≤ ~400 lines). */
const MAX_LINES = 400;

/** Generated (the WebAssembly kernels' bytes) or vendored: not written by hand here. */
function generated(path: string): boolean {
  return /\/kernel\/\w+_bytes\.ts$/.test(path) || path.startsWith("lib/vendor/");
}

Deno.test(`no hand-written source file of main.ts, lib/, tools/ or systems/ is over ${MAX_LINES} lines`, async () => {
  const files = await sourceFiles(["main.ts", "lib", "tools", "systems"]);
  assert.ok(files.length > 200, `only ${files.length} files found`);
  const long: string[] = [];
  for (const file of files) {
    if (generated(file)) continue;
    const text = await Deno.readTextFile(`${REPO_ROOT}${file}`);
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_LINES) long.push(`${file}: ${lines} lines`);
  }
  assert.deepEqual(long, [], `split these by concern:\n${long.join("\n")}`);
});
