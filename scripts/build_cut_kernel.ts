/**
 * Generates the WebAssembly SIMD kernel that finds the units (sentences and
 * paragraphs) of ASCII documents for passage cutting: writes
 * `lib/retrieval/kernel/cut_kernel.wat` (the source) and
 * `lib/retrieval/kernel/cut_kernel_bytes.ts` (the assembled module, base64).
 *
 * Needs `wat2wasm` (Debian package `wabt`). Run after changing this file:
 *
 *     deno run --allow-write=lib/retrieval/kernel --allow-read=lib/retrieval/kernel --allow-run=wat2wasm scripts/build_cut_kernel.ts
 *
 * The module imports its memory (`env.memory`, laid out by
 * `lib/retrieval/cut_kernel.ts`) and exports one function:
 *
 * `units(p, end, out, cap) -> count`: the units of the ASCII bytes `[p, end)`
 * by the rule of `passages.ts` (`findAsciiUnits`, which gives the same
 * units), written at `out` as `[start, end, words, paragraphEnd]` (i32
 * each, offsets from `p`); at most `cap` of them, or -1 when there are more.
 * The bytes from `end` on must be zero for 64 bytes. The document's word
 * count is stored at address 0.
 *
 * How, 64 bytes a step: a space mask (bytes <= 32) and a newline mask from
 * `i8x16` compares and `i8x16.bitmask`; word starts and ends are where the
 * space mask changes, visited in order with `ctz`. What the rule needs between
 * two words is whether the first ended a sentence (its last byte, closers
 * skipped) and how many newlines the space between holds (a popcount of the
 * newline mask over it): a unit ends after a sentence end or before a space
 * holding two newlines or more (then it ends a paragraph).
 *
 * @module
 */

import { writeKernel } from "./wasm_kernel.ts";

/** i8x16 constant with every lane `value`. */
function splat(value: number): string {
  return `(v128.const i8x16 ${`${value} `.repeat(16).trim()})`;
}

/** Masks of the 64 bytes at `$q`: space into `$<t>S`, newline into `$<t>N`. */
function classify64(t: string): string {
  const parts = [`(local.set $${t}S (i64.const 0)) (local.set $${t}N (i64.const 0))`];
  for (let k = 0; k < 4; k++) {
    const shift = (expr: string) =>
      `(i64.shl (i64.extend_i32_u (i8x16.bitmask ${expr})) (i64.const ${16 * k}))`;
    parts.push(`(local.set $v (v128.load offset=${16 * k} (local.get $q)))`);
    parts.push(
      `(local.set $${t}S (i64.or (local.get $${t}S) ${
        shift(`(i8x16.le_u (local.get $v) ${splat(32)})`)
      }))`,
    );
    parts.push(
      `(local.set $${t}N (i64.or (local.get $${t}N) ${
        shift(`(i8x16.eq (local.get $v) ${splat(10)})`)
      }))`,
    );
  }
  return parts.join("\n    ");
}

/** Whether byte `b` (an i32 expression, evaluated more than once) is `value`. */
function is(b: string, value: number): string {
  return `(i32.eq ${b} (i32.const ${value}))`;
}

/** Appends the open unit (paragraph end `para`), or returns -1 when `out` is full. */
function push(para: string): string {
  return `(if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const -1))))
          (local.set $at (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 4))))
          (i32.store (local.get $at) (i32.sub (local.get $start) (local.get $base)))
          (i32.store offset=4 (local.get $at) (i32.sub (local.get $lastEnd) (local.get $base)))
          (i32.store offset=8 (local.get $at) (local.get $words))
          (i32.store offset=12 (local.get $at) ${para})
          (local.set $count (i32.add (local.get $count) (i32.const 1)))
          (local.set $total (i32.add (local.get $total) (local.get $words)))
          (local.set $words (i32.const 0))
          (local.set $start (i32.const -1))`;
}

/** The `units` function. */
function units(): string {
  const closer = (b: string) =>
    `(i32.or (i32.or ${is(b, 34)} ${is(b, 39)}) (i32.or (i32.or ${is(b, 41)} ${is(b, 93)}) ${
      is(b, 125)
    }))`;
  const ender = (b: string) => `(i32.or (i32.or ${is(b, 46)} ${is(b, 33)}) ${is(b, 63)})`;
  return `(func (export "units") (param $p i32) (param $end i32) (param $out i32) (param $cap i32) (result i32)
  (local $v v128)
  (local $cS i64) (local $cN i64) (local $nS i64) (local $nN i64) (local $carry i64) (local $starts i64)
  (local $ends i64) (local $ev i64) (local $bit i64) (local $below i64)
  (local $base i32) (local $q i32) (local $pos i32) (local $b i32) (local $start i32) (local $lastEnd i32)
  (local $words i32) (local $total i32) (local $count i32) (local $wordStart i32) (local $last i32)
  (local $sentence i32) (local $newlines i32) (local $runFrom i32) (local $at i32) (local $byte i32)
  (local.set $base (local.get $p))
  (local.set $start (i32.const -1))
  ;; Before the text counts as space.
  (local.set $carry (i64.const 1))
  (local.set $q (local.get $p))
  ${classify64("c")}
  (block $done (loop $step
    (br_if $done (i32.gt_u (local.get $p) (local.get $end)))
    (local.set $q (i32.add (local.get $p) (i32.const 64)))
    ${classify64("n")}
    ;; Bit i: a word starts at byte i / the space after a word starts at byte i.
    (local.set $below (i64.or (i64.shl (local.get $cS) (i64.const 1)) (local.get $carry)))
    (local.set $starts (i64.and (i64.xor (local.get $cS) (i64.const -1)) (local.get $below)))
    (local.set $ends (i64.and (local.get $cS) (i64.xor (local.get $below) (i64.const -1))))
    (local.set $ev (i64.or (local.get $starts) (local.get $ends)))
    (block $visited (loop $event
      (br_if $visited (i64.eqz (local.get $ev)))
      (local.set $bit (i64.and (local.get $ev) (i64.sub (i64.const 0) (local.get $ev))))
      (local.set $b (i32.wrap_i64 (i64.ctz (local.get $ev))))
      (local.set $pos (i32.add (local.get $p) (local.get $b)))
      (if (i64.ne (i64.and (local.get $starts) (local.get $bit)) (i64.const 0))
        (then
          ;; The space before this word: its newlines since $runFrom in this step.
          (local.set $newlines (i32.add (local.get $newlines) (i32.wrap_i64 (i64.popcnt
            (i64.and (local.get $cN) (i64.and (i64.sub (local.get $bit) (i64.const 1))
              (i64.xor (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $runFrom))) (i64.const 1))
                (i64.const -1))))))))
          (if (i32.and (i32.ge_s (local.get $start) (i32.const 0))
                (i32.or (local.get $sentence) (i32.ge_u (local.get $newlines) (i32.const 2))))
            (then ${push("(i32.ge_u (local.get $newlines) (i32.const 2))")}))
          (if (i32.lt_s (local.get $start) (i32.const 0)) (then (local.set $start (local.get $pos))))
          (local.set $words (i32.add (local.get $words) (i32.const 1)))
          (local.set $wordStart (local.get $pos)))
        (else
          ;; A word ended before $pos: does it end a sentence (closers skipped)?
          (local.set $lastEnd (local.get $pos))
          (local.set $last (i32.sub (local.get $pos) (i32.const 1)))
          (block $bare (loop $strip
            (br_if $bare (i32.le_u (local.get $last) (local.get $wordStart)))
            (local.set $byte (i32.load8_u (local.get $last)))
            (br_if $bare (i32.eqz ${closer("(local.get $byte)")}))
            (local.set $last (i32.sub (local.get $last) (i32.const 1)))
            (br $strip)))
          (local.set $byte (i32.load8_u (local.get $last)))
          (local.set $sentence ${ender("(local.get $byte)")})
          (local.set $newlines (i32.const 0))
          (local.set $runFrom (local.get $b))))
      (local.set $ev (i64.xor (local.get $ev) (local.get $bit)))
      (br $event)))
    ;; A space running on into the next step: its newlines from $runFrom to here.
    (if (i64.ne (i64.and (local.get $cS) (i64.const 0x8000000000000000)) (i64.const 0))
      (then
        (local.set $newlines (i32.add (local.get $newlines) (i32.wrap_i64 (i64.popcnt
          (i64.and (local.get $cN)
            (i64.xor (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (local.get $runFrom))) (i64.const 1))
              (i64.const -1)))))))))
    (local.set $runFrom (i32.const 0))
    (local.set $carry (i64.shr_u (local.get $cS) (i64.const 63)))
    (local.set $cS (local.get $nS))
    (local.set $cN (local.get $nN))
    (local.set $p (i32.add (local.get $p) (i32.const 64)))
    (br $step)))
  (if (i32.ge_s (local.get $start) (i32.const 0))
    (then ${push("(i32.const 1)")})
    (else
      (if (i32.gt_u (local.get $count) (i32.const 0))
        (then (i32.store offset=12 (i32.add (local.get $out) (i32.shl (i32.sub (local.get $count) (i32.const 1))
          (i32.const 4))) (i32.const 1))))))
  (i32.store (i32.const 0) (local.get $total))
  (local.get $count))`;
}

/** The kernel's WebAssembly text, as written to `cut_kernel.wat`. */
export function moduleText(): string {
  return [
    ";; Generated by scripts/build_cut_kernel.ts: edit that script, not this file.",
    "(module",
    '(import "env" "memory" (memory 1))',
    units(),
    ")",
    "",
  ].join("\n");
}

if (import.meta.main) {
  await writeKernel({
    stem: "cut",
    text: moduleText(),
    constant: "CUT_KERNEL_BASE64",
    title: "The assembled passage-cutting kernel",
  });
}
