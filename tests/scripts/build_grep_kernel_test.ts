import assert from "node:assert/strict";
import { base64 } from "../../scripts/build_dot_kernel.ts";
import { moduleText } from "../../scripts/build_grep_kernel.ts";
import { GREP_KERNEL_BASE64 } from "../../lib/retrieval/kernel/grep_kernel_bytes.ts";

const WAT = new URL("../../lib/retrieval/kernel/grep_kernel.wat", import.meta.url);

Deno.test("the committed grep kernel text is what the generator writes", async () => {
  assert.equal(await Deno.readTextFile(WAT), moduleText());
});

const wat2wasm = await new Deno.Command("wat2wasm", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);

Deno.test({
  name: "the committed grep kernel bytes are the committed text assembled (needs wat2wasm)",
  ignore: !wat2wasm,
  async fn() {
    const out = await Deno.makeTempFile({ suffix: ".wasm" });
    try {
      const result = await new Deno.Command("wat2wasm", { args: [WAT.pathname, "-o", out] })
        .output();
      assert.ok(result.success);
      assert.equal(base64(await Deno.readFile(out)), GREP_KERNEL_BASE64);
    } finally {
      await Deno.remove(out);
    }
  },
});
