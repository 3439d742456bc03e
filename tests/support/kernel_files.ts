/**
 * The two checks every generated WebAssembly kernel gets: its committed
 * `.wat` is what its generator writes, and its committed base64 module is
 * that text assembled (when `wat2wasm` is installed).
 *
 * @module
 */

import assert from "node:assert/strict";
import { base64 } from "../../scripts/wasm_kernel.ts";

const wat2wasm = await new Deno.Command("wat2wasm", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);

/** Registers the two tests for kernel `stem` (see scripts/wasm_kernel.ts). */
export function testKernelFiles(
  stem: string,
  generated: () => string,
  committedBase64: string,
): void {
  const wat = new URL(`../../lib/retrieval/kernel/${stem}_kernel.wat`, import.meta.url);
  Deno.test(`the committed ${stem} kernel text is what its generator writes`, async () => {
    assert.equal(await Deno.readTextFile(wat), generated());
  });
  Deno.test({
    name: `the committed ${stem} kernel bytes are the committed text assembled (needs wat2wasm)`,
    ignore: !wat2wasm,
    async fn() {
      const out = await Deno.makeTempFile({ suffix: ".wasm" });
      try {
        const result = await new Deno.Command("wat2wasm", { args: [wat.pathname, "-o", out] })
          .output();
        assert.ok(result.success);
        assert.equal(base64(await Deno.readFile(out)), committedBase64);
      } finally {
        await Deno.remove(out);
      }
    },
  });
}
