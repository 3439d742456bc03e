/**
 * The two checks every generated WebAssembly kernel gets: its committed
 * `.wat` is what its generator writes, and its committed base64 module is
 * that text assembled by the generators' own assembler (the npm package
 * `wabt`, so no `wat2wasm` needs to be installed).
 *
 * @module
 */

import assert from "node:assert/strict";
import { assemble, base64 } from "../../scripts/wasm_kernel.ts";

/** Registers the two tests for kernel `stem`, committed in `dir` (see scripts/wasm_kernel.ts). */
export function testKernelFiles(
  stem: string,
  dir: string,
  generated: () => string,
  committedBase64: string,
): void {
  const wat = new URL(`../../${dir}/${stem}_kernel.wat`, import.meta.url);
  Deno.test(`the committed ${stem} kernel text is what its generator writes`, async () => {
    assert.equal(await Deno.readTextFile(wat), generated());
  });
  Deno.test(`the committed ${stem} kernel bytes are the committed text assembled`, async () => {
    const bytes = await assemble(`${stem}_kernel.wat`, await Deno.readTextFile(wat));
    assert.equal(base64(bytes), committedBase64);
  });
}
