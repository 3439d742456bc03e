/**
 * Generates the WebAssembly dot-product kernel of the vector index:
 * writes `lib/dense/kernel/dot_kernel.wat` (the source, unrolled by this
 * script) and `lib/dense/kernel/dot_kernel_bytes.ts` (the assembled
 * module, base64, so it loads with no permission and inside a compiled binary).
 *
 * Assembles with the npm package `wabt` (see wasm_kernel.ts). Run after changing this file:
 *
 *     deno run --allow-write=lib/dense/kernel --allow-read=lib/dense/kernel scripts/build_dot_kernel.ts
 *
 * Exports of the module (all pointers are byte offsets into its memory,
 * 16-byte aligned; `dp` dimensions are padded to a multiple of 16):
 * - `dot_f32(rows, n, dp/4, query, out)`: out[i] = rows[i] · query, f32, 8 rows at a time;
 * - `dot_f32_at(rows, dp/4, query, idx, count, out)`: the same for the rows listed in idx (i32);
 * - `dot_i8(rows, n, dp/16, query, out)`: out[i] (i32) = Σ rows[i][j] (i8) × query[j] (i16).
 *
 * @module
 */

import { writeKernel } from "./wasm_kernel.ts";

const ROWS = 8;

function hsum(kind: "f32" | "i32"): string {
  const x = (lane: number) => `(${kind}x4.extract_lane ${lane} (local.get $v))`;
  return `(func $hsum_${kind} (param $v v128) (result ${kind})
  (${kind}.add (${kind}.add ${x(0)} ${x(1)}) (${kind}.add ${x(2)} ${x(3)})))`;
}

/** One row's multiply-accumulate over 16 bytes of the row at offset `off`. */
function macF32(row: string, acc: string, off: number, q: string): string {
  return `(local.set ${acc} (f32x4.add (local.get ${acc}) (f32x4.mul ${q} (v128.load offset=${off} (local.get ${row})))))`;
}

function macI8(row: string, acc: string): string {
  return `(local.set $v (v128.load (local.get ${row})))
  (local.set ${acc} (i32x4.add (local.get ${acc}) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $ql))))
  (local.set ${acc} (i32x4.add (local.get ${acc}) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qh))))`;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Dense f32 scores: blocks of ROWS rows share each query load; 32 bytes of each row per step. */
function dotF32(): string {
  const locals = range(ROWS).map((r) => `(local $r${r} i32) (local $a${r} v128)`).join(" ");
  const init = range(ROWS).map((r) =>
    `(local.set $a${r} (v128.const i32x4 0 0 0 0))
    (local.set $r${r} (i32.add (local.get $m) (i32.mul (local.get $stride) (i32.const ${r}))))`
  ).join("\n    ");
  const body = [0, 16].map((off) =>
    `(local.set $qv (v128.load offset=${off} (local.get $qj)))\n      ` +
    range(ROWS).map((r) => macF32(`$r${r}`, `$a${r}`, off, "(local.get $qv)")).join("\n      ")
  ).join("\n      ");
  const step = range(ROWS).map((r) =>
    `(local.set $r${r} (i32.add (local.get $r${r}) (i32.const 32)))`
  ).join(" ");
  const store = range(ROWS).map((r) =>
    `(f32.store offset=${4 * r} (local.get $out) (call $hsum_f32 (local.get $a${r})))`
  ).join("\n    ");
  return `(func (export "dot_f32") (param $m i32) (param $n i32) (param $d4 i32) (param $q i32) (param $out i32)
  (local $stride i32) (local $i i32) (local $qj i32) (local $end i32) (local $nb i32) (local $qv v128) ${locals}
  (local.set $stride (i32.shl (local.get $d4) (i32.const 4)))
  (local.set $nb (i32.sub (local.get $n) (i32.rem_u (local.get $n) (i32.const ${ROWS}))))
  (local.set $end (i32.add (local.get $q) (local.get $stride)))
  (block $blocks_done (loop $blocks
    (br_if $blocks_done (i32.ge_u (local.get $i) (local.get $nb)))
    ${init}
    (local.set $qj (local.get $q))
    (loop $dims
      ${body}
      ${step}
      (local.set $qj (i32.add (local.get $qj) (i32.const 32)))
      (br_if $dims (i32.lt_u (local.get $qj) (local.get $end))))
    ${store}
    (local.set $out (i32.add (local.get $out) (i32.const ${4 * ROWS})))
    (local.set $m (i32.add (local.get $m) (i32.mul (local.get $stride) (i32.const ${ROWS}))))
    (local.set $i (i32.add (local.get $i) (i32.const ${ROWS})))
    (br $blocks)))
  (block $rows_done (loop $rows
    (br_if $rows_done (i32.ge_u (local.get $i) (local.get $n)))
    (f32.store (local.get $out) (call $row_f32 (local.get $m) (local.get $q) (local.get $end)))
    (local.set $out (i32.add (local.get $out) (i32.const 4)))
    (local.set $m (i32.add (local.get $m) (local.get $stride)))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (br $rows))))`;
}

/**
 * One f32 row against the query, in the same order of operations as a row of
 * `dot_f32` (one accumulator, 16 bytes at offset 0 then at 16), so both give
 * bit-identical scores and the pruned search returns exactly what the scan does.
 */
function rowF32(): string {
  return `(func $row_f32 (param $r i32) (param $qj i32) (param $end i32) (result f32)
  (local $a0 v128)
  (loop $dims
    ${macF32("$r", "$a0", 0, "(v128.load offset=0 (local.get $qj))")}
    ${macF32("$r", "$a0", 16, "(v128.load offset=16 (local.get $qj))")}
    (local.set $r (i32.add (local.get $r) (i32.const 32)))
    (local.set $qj (i32.add (local.get $qj) (i32.const 32)))
    (br_if $dims (i32.lt_u (local.get $qj) (local.get $end))))
  (call $hsum_f32 (local.get $a0)))`;
}

function dotF32At(): string {
  return `(func (export "dot_f32_at") (param $m i32) (param $d4 i32) (param $q i32) (param $idx i32) (param $count i32) (param $out i32)
  (local $stride i32) (local $end i32) (local $stop i32)
  (local.set $stride (i32.shl (local.get $d4) (i32.const 4)))
  (local.set $end (i32.add (local.get $q) (local.get $stride)))
  (local.set $stop (i32.add (local.get $idx) (i32.shl (local.get $count) (i32.const 2))))
  (block $done (loop $each
    (br_if $done (i32.ge_u (local.get $idx) (local.get $stop)))
    (f32.store (local.get $out) (call $row_f32
      (i32.add (local.get $m) (i32.mul (i32.load (local.get $idx)) (local.get $stride)))
      (local.get $q) (local.get $end)))
    (local.set $idx (i32.add (local.get $idx) (i32.const 4)))
    (local.set $out (i32.add (local.get $out) (i32.const 4)))
    (br $each))))`;
}

/** int8 rows × int16 query, exact in i32; 16 dimensions (16 row bytes, 32 query bytes) per step. */
function dotI8(): string {
  const locals = range(ROWS).map((r) => `(local $r${r} i32) (local $a${r} v128)`).join(" ");
  const init = range(ROWS).map((r) =>
    `(local.set $a${r} (v128.const i32x4 0 0 0 0))
    (local.set $r${r} (i32.add (local.get $m) (i32.mul (local.get $stride) (i32.const ${r}))))`
  ).join("\n    ");
  const body = range(ROWS).map((r) => macI8(`$r${r}`, `$a${r}`)).join("\n      ");
  const step = range(ROWS).map((r) =>
    `(local.set $r${r} (i32.add (local.get $r${r}) (i32.const 16)))`
  ).join(" ");
  const store = range(ROWS).map((r) =>
    `(i32.store offset=${4 * r} (local.get $out) (call $hsum_i32 (local.get $a${r})))`
  ).join("\n    ");
  return `(func (export "dot_i8") (param $m i32) (param $n i32) (param $d16 i32) (param $q i32) (param $out i32)
  (local $stride i32) (local $i i32) (local $qj i32) (local $end i32) (local $nb i32)
  (local $ql v128) (local $qh v128) (local $v v128) ${locals}
  (local.set $stride (i32.shl (local.get $d16) (i32.const 4)))
  (local.set $nb (i32.sub (local.get $n) (i32.rem_u (local.get $n) (i32.const ${ROWS}))))
  (local.set $end (i32.add (local.get $q) (i32.shl (local.get $stride) (i32.const 1))))
  (block $blocks_done (loop $blocks
    (br_if $blocks_done (i32.ge_u (local.get $i) (local.get $nb)))
    ${init}
    (local.set $qj (local.get $q))
    (loop $dims
      (local.set $ql (v128.load (local.get $qj)))
      (local.set $qh (v128.load offset=16 (local.get $qj)))
      ${body}
      ${step}
      (local.set $qj (i32.add (local.get $qj) (i32.const 32)))
      (br_if $dims (i32.lt_u (local.get $qj) (local.get $end))))
    ${store}
    (local.set $out (i32.add (local.get $out) (i32.const ${4 * ROWS})))
    (local.set $m (i32.add (local.get $m) (i32.mul (local.get $stride) (i32.const ${ROWS}))))
    (local.set $i (i32.add (local.get $i) (i32.const ${ROWS})))
    (br $blocks)))
  (block $rows_done (loop $rows
    (br_if $rows_done (i32.ge_u (local.get $i) (local.get $n)))
    (local.set $a0 (v128.const i32x4 0 0 0 0))
    (local.set $qj (local.get $q))
    (loop $dims1
      (local.set $ql (v128.load (local.get $qj)))
      (local.set $qh (v128.load offset=16 (local.get $qj)))
      ${macI8("$m", "$a0")}
      (local.set $m (i32.add (local.get $m) (i32.const 16)))
      (local.set $qj (i32.add (local.get $qj) (i32.const 32)))
      (br_if $dims1 (i32.lt_u (local.get $qj) (local.get $end))))
    (i32.store (local.get $out) (call $hsum_i32 (local.get $a0)))
    (local.set $out (i32.add (local.get $out) (i32.const 4)))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (br $rows))))`;
}

/** The kernel's WebAssembly text, as written to `dot_kernel.wat`. */
export function moduleText(): string {
  return [
    ";; Generated by scripts/build_dot_kernel.ts: edit that script, not this file.",
    "(module",
    '(memory (export "memory") 1)',
    hsum("f32"),
    hsum("i32"),
    rowF32(),
    dotF32(),
    dotF32At(),
    dotI8(),
    ")",
    "",
  ].join("\n");
}

if (import.meta.main) {
  await writeKernel({
    stem: "dot",
    dir: "lib/dense/kernel",
    text: moduleText(),
    constant: "DOT_KERNEL_BASE64",
    title: "The assembled dot-product kernel",
  });
}
