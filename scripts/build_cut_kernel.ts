/**
 * Generates the WebAssembly SIMD kernel that finds the units (sentences and
 * paragraphs) of ASCII documents for passage cutting: writes
 * `lib/lexical/kernel/cut_kernel.wat` (the source) and
 * `lib/lexical/kernel/cut_kernel_bytes.ts` (the assembled module, base64).
 *
 * Assembles with the npm package `wabt` (see wasm_kernel.ts). Run after changing this file:
 *
 *     deno run --allow-write=lib/lexical/kernel --allow-read=lib/lexical/kernel scripts/build_cut_kernel.ts
 *
 * The module imports its memory (`env.memory`, laid out by
 * `lib/lexical/cut_kernel.ts`) and exports one function:
 *
 * `units(p, end, out, cap) -> count`: the units of the ASCII bytes `[p, end)`
 * by the rule of `passages.ts` (`findAsciiUnits`, which gives the same
 * units), written at `out` as `[start, end, words, paragraphEnd]` (i32
 * each, offsets from `p`); at most `cap` of them, or -1 when there are more.
 * The bytes from `end` on must be zero for 64 bytes. The document's word
 * count is stored at address 0.
 *
 * How, 64 bytes a step: space, newline and punctuation masks from `i8x16`
 * compares and `i8x16.bitmask`. Words are counted with a popcount of their
 * starts (where the space mask turns off), never visited one by one; the
 * scalar code runs only where the rule may cut: at a word ending in
 * punctuation (is it a sentence end once closers are skipped?), at a newline
 * (is it the second since the last word: a paragraph end?) and, after a cut,
 * at the next word start (the next unit's first word). On English-like text
 * that is about one stop in ten words.
 *
 * @module
 */

import { writeKernel } from "./wasm_kernel.ts";

/** i8x16 constant with every lane `value`. */
function splat(value: number): string {
  return `(v128.const i8x16 ${`${value} `.repeat(16).trim()})`;
}

/** Bytes whose place at a word's end matters: sentence ends . ! ? and closers " ' ) ] }. */
const PUNCTUATION = [33, 34, 39, 41, 46, 63, 93, 125];

/** Masks of the 64 bytes at `$p`: space (<= 32) `$S`, newline `$N`, {@link PUNCTUATION} `$P`. */
function classify64(): string {
  const parts = [
    "(local.set $S (i64.const 0)) (local.set $N (i64.const 0)) (local.set $P (i64.const 0))",
  ];
  for (let k = 0; k < 4; k++) {
    const shift = (expr: string) =>
      `(i64.shl (i64.extend_i32_u (i8x16.bitmask ${expr})) (i64.const ${16 * k}))`;
    const eq = (value: number) => `(i8x16.eq (local.get $v) ${splat(value)})`;
    let punctuation = eq(PUNCTUATION[0]);
    for (const value of PUNCTUATION.slice(1)) punctuation = `(v128.or ${punctuation} ${eq(value)})`;
    parts.push(`(local.set $v (v128.load offset=${16 * k} (local.get $p)))`);
    parts.push(
      `(local.set $S (i64.or (local.get $S) ${shift(`(i8x16.le_u (local.get $v) ${splat(32)})`)}))`,
    );
    parts.push(`(local.set $N (i64.or (local.get $N) ${shift(eq(10))}))`);
    parts.push(`(local.set $P (i64.or (local.get $P) ${shift(punctuation)}))`);
  }
  return parts.join("\n    ");
}

/** Whether byte `b` (an i32 expression, evaluated more than once) is `value`. */
function is(b: string, value: number): string {
  return `(i32.eq ${b} (i32.const ${value}))`;
}

/** Bits of `$<mask>` below bit `$bit` (an i64 with one bit set). */
function below(mask: string): string {
  return `(i64.and (local.get ${mask}) (i64.sub (local.get $bit) (i64.const 1)))`;
}

/** Words started before the event at `$bit`. */
const WORDS_BEFORE = `(i32.add (local.get $total) (i32.wrap_i64 (i64.popcnt ${below("$starts")})))`;

/**
 * Appends the open unit, ending at `$lastEnd` with the words started before
 * `$bit` (paragraph end `para`), or returns -1 when `out` is full.
 */
function push(para: string): string {
  return `(if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const -1))))
          (local.set $at (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 4))))
          (i32.store (local.get $at) (i32.sub (local.get $start) (local.get $base)))
          (i32.store offset=4 (local.get $at) (i32.sub (local.get $lastEnd) (local.get $base)))
          (i32.store offset=8 (local.get $at) (i32.sub ${WORDS_BEFORE} (local.get $startWords)))
          (i32.store offset=12 (local.get $at) ${para})
          (local.set $count (i32.add (local.get $count) (i32.const 1)))
          (local.set $pending (i32.const 1))`;
}

/** Position just after the last non-space byte before `$bit`. */
const END_BEFORE = `(if (result i32) (i64.ne ${below("$word")} (i64.const 0))
            (then (i32.sub (i32.add (local.get $p) (i32.const 64)) (i32.wrap_i64 (i64.clz ${
  below("$word")
}))))
            (else (i32.add (local.get $lastWord) (i32.const 1))))`;

/** The `units` function. */
function units(): string {
  const closer = (b: string) =>
    `(i32.or (i32.or ${is(b, 34)} ${is(b, 39)}) (i32.or (i32.or ${is(b, 41)} ${is(b, 93)}) ${
      is(b, 125)
    }))`;
  const ender = (b: string) => `(i32.or (i32.or ${is(b, 46)} ${is(b, 33)}) ${is(b, 63)})`;
  return `(func (export "units") (param $p i32) (param $end i32) (param $out i32) (param $cap i32) (result i32)
  (local $v v128)
  (local $S i64) (local $N i64) (local $P i64) (local $word i64) (local $carryS i64) (local $carryP i64)
  (local $starts i64) (local $sentences i64) (local $ev i64) (local $bit i64) (local $m i64)
  (local $base i32) (local $pos i32) (local $start i32) (local $startWords i32) (local $lastEnd i32)
  (local $total i32) (local $count i32) (local $pending i32) (local $wordStart i32) (local $last i32)
  (local $lastWord i32) (local $lastStart i32) (local $lastNewline i32) (local $newlines i32)
  (local $at i32) (local $byte i32)
  (local.set $base (local.get $p))
  (local.set $pending (i32.const 1))
  (local.set $lastWord (i32.const -1))
  (local.set $lastNewline (i32.const -2))
  ;; Before the text counts as space.
  (local.set $carryS (i64.const 1))
  (block $done (loop $step
    (br_if $done (i32.gt_u (local.get $p) (local.get $end)))
    ${classify64()}
    (local.set $word (i64.xor (local.get $S) (i64.const -1)))
    ;; Bit i: a word starts at byte i; a word ends before byte i with punctuation.
    (local.set $starts (i64.and (local.get $word)
      (i64.or (i64.shl (local.get $S) (i64.const 1)) (local.get $carryS))))
    (local.set $sentences (i64.and (i64.and (local.get $S)
      (i64.xor (i64.or (i64.shl (local.get $S) (i64.const 1)) (local.get $carryS)) (i64.const -1)))
      (i64.or (i64.shl (local.get $P) (i64.const 1)) (local.get $carryP))))
    (local.set $ev (i64.or (i64.or (local.get $sentences) (local.get $N))
      (select (local.get $starts) (i64.const 0) (local.get $pending))))
    (block $visited (loop $event
      (br_if $visited (i64.eqz (local.get $ev)))
      (local.set $bit (i64.and (local.get $ev) (i64.sub (i64.const 0) (local.get $ev))))
      (local.set $pos (i32.add (local.get $p) (i32.wrap_i64 (i64.ctz (local.get $ev)))))
      (if (i64.ne (i64.and (local.get $sentences) (local.get $bit)) (i64.const 0))
        (then
          ;; A word ending in punctuation ended before $pos: a sentence end, closers skipped?
          (local.set $m ${below("$starts")})
          (local.set $wordStart (select
            (i32.sub (i32.add (local.get $p) (i32.const 63)) (i32.wrap_i64 (i64.clz (local.get $m))))
            (local.get $lastStart) (i64.ne (local.get $m) (i64.const 0))))
          (local.set $last (i32.sub (local.get $pos) (i32.const 1)))
          (block $bare (loop $strip
            (br_if $bare (i32.le_u (local.get $last) (local.get $wordStart)))
            (local.set $byte (i32.load8_u (local.get $last)))
            (br_if $bare (i32.eqz ${closer("(local.get $byte)")}))
            (local.set $last (i32.sub (local.get $last) (i32.const 1)))
            (br $strip)))
          (local.set $byte (i32.load8_u (local.get $last)))
          (if (i32.and (i32.eqz (local.get $pending)) ${ender("(local.get $byte)")})
            (then
              (local.set $lastEnd (local.get $pos))
              ${push("(i32.const 0)")}))))
      (if (i64.ne (i64.and (local.get $N) (local.get $bit)) (i64.const 0))
        (then
          ;; A newline: the second since the last word ends a paragraph.
          (local.set $lastEnd ${END_BEFORE})
          (local.set $newlines (select (i32.const 1) (i32.add (local.get $newlines) (i32.const 1))
            (i32.gt_s (i32.sub (local.get $lastEnd) (i32.const 1)) (local.get $lastNewline))))
          (local.set $lastNewline (local.get $pos))
          (if (i32.eq (local.get $newlines) (i32.const 2))
            (then
              (if (i32.eqz (local.get $pending))
                (then ${push("(i32.const 1)")})
                (else
                  (if (i32.gt_u (local.get $count) (i32.const 0))
                    (then (i32.store offset=12 (i32.add (local.get $out)
                      (i32.shl (i32.sub (local.get $count) (i32.const 1)) (i32.const 4))) (i32.const 1))))))))))
      (if (i32.and (local.get $pending) (i64.ne (i64.and (local.get $starts) (local.get $bit)) (i64.const 0)))
        (then
          ;; The first word of a unit.
          (local.set $start (local.get $pos))
          (local.set $startWords ${WORDS_BEFORE})
          (local.set $pending (i32.const 0))))
      ;; The events after this one (the starts only while no unit is open).
      (local.set $ev (i64.and
        (i64.or (i64.or (local.get $sentences) (local.get $N))
          (select (local.get $starts) (i64.const 0) (local.get $pending)))
        (i64.xor (i64.sub (i64.shl (local.get $bit) (i64.const 1)) (i64.const 1)) (i64.const -1))))
      (br $event)))
    (local.set $total (i32.add (local.get $total) (i32.wrap_i64 (i64.popcnt (local.get $starts)))))
    (if (i64.ne (local.get $word) (i64.const 0))
      (then (local.set $lastWord (i32.sub (i32.add (local.get $p) (i32.const 63))
        (i32.wrap_i64 (i64.clz (local.get $word)))))))
    (if (i64.ne (local.get $starts) (i64.const 0))
      (then (local.set $lastStart (i32.sub (i32.add (local.get $p) (i32.const 63))
        (i32.wrap_i64 (i64.clz (local.get $starts)))))))
    (local.set $carryS (i64.shr_u (local.get $S) (i64.const 63)))
    (local.set $carryP (i64.shr_u (local.get $P) (i64.const 63)))
    (local.set $p (i32.add (local.get $p) (i32.const 64)))
    (br $step)))
  (if (i32.eqz (local.get $pending))
    (then
      (local.set $lastEnd (i32.add (local.get $lastWord) (i32.const 1)))
      ;; All words are before the end: $bit 0 makes the popcount below it 0.
      (local.set $bit (i64.const 0))
      (local.set $starts (i64.const 0))
      ${push("(i32.const 1)")})
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
    dir: "lib/lexical/kernel",
    text: moduleText(),
    constant: "CUT_KERNEL_BASE64",
    title: "The assembled passage-cutting kernel",
  });
}
