import assert from "node:assert/strict";
import { assemble } from "../../scripts/wasm_kernel.ts";

Deno.test("assemble: a module that runs, with SIMD enabled as wat2wasm enables it", async () => {
  const bytes = await assemble(
    "add.wat",
    `(module (func (export "lanes") (param i32) (result i32)
      (i32x4.extract_lane 2 (i32x4.add (i32x4.splat (local.get 0)) (i32x4.splat (i32.const 1))))))`,
  );
  const { instance } = await WebAssembly.instantiate(bytes);
  assert.equal((instance.exports.lanes as (x: number) => number)(41), 42);
});

Deno.test("assemble: text that does not parse or validate fails with WABT's message and the file", async () => {
  await assert.rejects(
    assemble("bad.wat", "(module (fnc))"),
    /parseWat failed:\nbad\.wat:1:10: error: unexpected token "fnc"/,
  );
  await assert.rejects(
    assemble("bad.wat", "(module (func (result i32)))"),
    /validate failed:\nbad\.wat:1:15: error: type mismatch in implicit return/,
  );
});
