import assert from "node:assert/strict";

/**
 * Runs `code` (a module body) in a child `deno eval` whose V8 heap is capped at
 * `heapMb`, and returns what it printed. For tests that something is read in
 * pieces: a whole file as one string would not fit such a heap.
 */
export async function evalUnderHeap(heapMb: number, code: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `--v8-flags=--max-old-space-size=${heapMb}`, code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr).slice(0, 2_000));
  return new TextDecoder().decode(out.stdout).trim();
}
