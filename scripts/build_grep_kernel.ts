/**
 * Generates the WebAssembly byte-scan kernel of `corpus_grep`'s plain-word
 * search: writes `lib/grep/kernel/grep_kernel.wat` (the source) and
 * `lib/grep/kernel/grep_kernel_bytes.ts` (the assembled module, base64,
 * so it loads with no permission and inside a compiled binary).
 *
 * Assembles with the npm package `wabt` (see wasm_kernel.ts). Run after changing this file:
 *
 *     deno run --allow-write=lib/grep/kernel --allow-read=lib/grep/kernel scripts/build_grep_kernel.ts
 *
 * The module imports its memory (`env.memory`: one memory per line-store
 * segment, holding the segment's UTF-8 bytes), declared `shared`: the
 * memory is a SharedArrayBuffer the main thread fills and the sandbox
 * worker scans (lib/grep/shared_text.ts). The kernel only reads it — the
 * needle comes in as arguments, not through memory — so a worker that is
 * being replaced while it still runs a scan cannot disturb its successor's.
 * It exports two functions:
 *
 * - `find_word(q, end, b1, b2, off1, dist, m1, m2, w0, ..., w7, len, fold) -> s`:
 *   the first needle start s (a memory address) whose pair bytes match —
 *   `(mem[s + off1] | m1) == b1` and `(mem[s + off1 + dist] | m2) == b2` —
 *   and whose whole needle (`len` bytes, 1 to 32, given as eight
 *   little-endian i32 words `w0..w7`, zero past `len`) matches, with A-Z read
 *   as a-z when `fold` is 0x20; scanning the pair's first byte over positions
 *   [q, end); -1 when there is none. It reads up to 31 bytes past
 *   `end + dist` and 32 bytes from each candidate start; the caller keeps
 *   that much memory after its data.
 * - `find_byte(...)`, the same arguments: the same with the first pair byte
 *   alone (b2, dist and m2 unused), one compare per 16 bytes, so about twice
 *   the speed (~10 GB/s against ~6 here) when that byte is rare enough that
 *   the second byte would filter next to nothing.
 * - `count_byte(q, end, b) -> n`: the bytes equal to `b` in [q, end).
 *
 * This is the "packed pair" prefilter of ripgrep's memchr crate at 16 bytes a
 * vector: two bytes of the needle at their distance, compared 32 positions a
 * step (`i8x16.eq` twice, `v128.and`, one `v128.any_true` per step), each
 * candidate checked in place. An OR mask of 0x20 on a letter of the needle
 * folds ASCII case: `h | 0x20` equals a lower-case letter exactly when h is
 * that letter or its upper case (bytes 0x80 and above stay at 0xa0 and above).
 * Checking in the kernel and returning one position per call keeps a common
 * word cheap: the caller asks again from the next line, and the candidates in
 * the rest of a matched line are never visited. A candidate costs two vector
 * compares at most, so a scan is linear in the text whatever the word and
 * text (a hostile "aaa…a" in a run of a's included).
 *
 * @module
 */

import { writeKernel } from "./wasm_kernel.ts";

/**
 * Matches of the 16-byte block at `$q + off`, one lane per position: eq(b1) & eq(b2) for
 * the pair scan, eq(b1) alone for the one-byte scan.
 */
function block(off: number, pair: boolean): string {
  if (!pair) {
    return `(i8x16.eq (v128.or (v128.load offset=${off} (local.get $q)) (local.get $m1v)) (local.get $b1v))`;
  }
  return `(v128.and
        (i8x16.eq (v128.or (v128.load offset=${off} (local.get $q)) (local.get $m1v)) (local.get $b1v))
        (i8x16.eq (v128.or (v128.load offset=${off} (local.get $q2)) (local.get $m2v)) (local.get $b2v)))`;
}

/**
 * Checks the candidates of `$bits` (positions `$q` + bit) in order and returns the
 * first whose whole needle matches.
 */
const CHECK = `(block $checked (loop $check
        (br_if $checked (i32.eqz (local.get $bits)))
        (local.set $s (i32.sub (i32.add (local.get $q) (i32.ctz (local.get $bits))) (local.get $off1)))
        (if (call $matches (local.get $s) (local.get $n0) (local.get $n1) (local.get $want) (local.get $foldv))
          (then (return (local.get $s))))
        (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
        (br $check)))`;

/**
 * Whether the needle (32 bytes in `$n0` and `$n1`, of which the lanes set in `$want`
 * count) matches the 32 bytes at `$s`, with A-Z read as a-z where `$foldv`
 * holds 0x20: two vector compares whatever the needle's length, so a
 * candidate costs the same however much of the word it shares.
 */
function matches(): string {
  const text = (off: number) =>
    `(local.set $v (v128.load offset=${off} (local.get $s)))
  (local.set $v (v128.or (local.get $v) (v128.and (local.get $foldv)
    (i8x16.lt_u (i8x16.sub (local.get $v) (v128.const i8x16 ${
      "65 ".repeat(16).trim()
    })) (v128.const i8x16 ${"26 ".repeat(16).trim()})))))`;
  return `(func $matches (param $s i32) (param $n0 v128) (param $n1 v128) (param $want i32) (param $foldv v128) (result i32)
  (local $v v128) (local $bits i32)
  ${text(0)}
  (local.set $bits (i8x16.bitmask (i8x16.eq (local.get $v) (local.get $n0))))
  ${text(16)}
  (local.set $bits (i32.or (local.get $bits) (i32.shl
    (i8x16.bitmask (i8x16.eq (local.get $v) (local.get $n1))) (i32.const 16))))
  (i32.eq (i32.and (local.get $bits) (local.get $want)) (local.get $want)))`;
}

/** The needle's eight i32 words, as parameters. */
const NEEDLE_PARAMS = Array.from({ length: 8 }, (_, i) => `(param $w${i} i32)`).join(" ");

/** The needle words `$w{first}..$w{first + 3}` as one vector. */
function needleVector(first: number): string {
  let vector = `(i32x4.splat (local.get $w${first}))`;
  for (let lane = 1; lane < 4; lane++) {
    vector = `(i32x4.replace_lane ${lane} ${vector} (local.get $w${first + lane}))`;
  }
  return vector;
}

/** `find_word` (the pair scan) or, without `pair`, `find_byte` (b1 alone). */
function findWord(pair: boolean): string {
  const q2 = pair ? "(local.set $q2 (i32.add (local.get $q) (local.get $dist)))" : "";
  return `(func (export "${
    pair ? "find_word" : "find_byte"
  }") (param $q i32) (param $end i32) (param $b1 i32) (param $b2 i32)
  (param $off1 i32) (param $dist i32) (param $m1 i32) (param $m2 i32)
  ${NEEDLE_PARAMS} (param $len i32) (param $fold i32) (result i32)
  (local $q2 i32) (local $s i32) (local $bits i32) (local $left i32) (local $want i32) (local $foldv v128)
  (local $b1v v128) (local $b2v v128) (local $m1v v128) (local $m2v v128) (local $e0 v128) (local $e1 v128)
  (local $n0 v128) (local $n1 v128)
  (local.set $n0 ${needleVector(0)})
  (local.set $n1 ${needleVector(4)})
  (local.set $b1v (i8x16.splat (local.get $b1)))
  (local.set $b2v (i8x16.splat (local.get $b2)))
  (local.set $m1v (i8x16.splat (local.get $m1)))
  (local.set $m2v (i8x16.splat (local.get $m2)))
  (local.set $foldv (i8x16.splat (local.get $fold)))
  ;; The needle's lanes: len (1-32) low bits.
  (local.set $want (select (i32.const -1) (i32.sub (i32.shl (i32.const 1) (local.get $len)) (i32.const 1))
    (i32.ge_u (local.get $len) (i32.const 32))))
  (block $done
    ;; Whole 32-byte steps.
    (loop $step
      (br_if $done (i32.gt_s (i32.add (local.get $q) (i32.const 32)) (local.get $end)))
      ${q2}
      (local.set $e0 ${block(0, pair)})
      (local.set $e1 ${block(16, pair)})
      (if (v128.any_true (v128.or (local.get $e0) (local.get $e1)))
        (then
          (local.set $bits (i32.or (i8x16.bitmask (local.get $e0))
            (i32.shl (i8x16.bitmask (local.get $e1)) (i32.const 16))))
          ${CHECK}))
      (local.set $q (i32.add (local.get $q) (i32.const 32)))
      (br $step)))
  ;; The last < 32 positions: one more step with the bits past the end cleared.
  (local.set $left (i32.sub (local.get $end) (local.get $q)))
  (if (i32.gt_s (local.get $left) (i32.const 0))
    (then
      ${q2}
      (local.set $e0 ${block(0, pair)})
      (local.set $e1 ${block(16, pair)})
      (local.set $bits (i32.and
        (i32.or (i8x16.bitmask (local.get $e0)) (i32.shl (i8x16.bitmask (local.get $e1)) (i32.const 16)))
        (i32.sub (i32.shl (i32.const 1) (local.get $left)) (i32.const 1))))
      ${CHECK}))
  (i32.const -1))`;
}

/**
 * `count_byte(q, end, b) -> n`: how many bytes of [q, end) equal `b`, 16 a
 * step (`i8x16.eq`, `i8x16.bitmask`, `i32.popcnt`); the last step reads up to
 * 15 bytes past `end`. The line index counts a segment's `\n` with it to size
 * its arrays exactly.
 */
const COUNT_BYTE =
  `(func (export "count_byte") (param $q i32) (param $end i32) (param $b i32) (result i32)
  (local $bv v128) (local $n i32) (local $left i32)
  (local.set $bv (i8x16.splat (local.get $b)))
  (block $done
    (loop $step
      (br_if $done (i32.gt_u (i32.add (local.get $q) (i32.const 16)) (local.get $end)))
      (local.set $n (i32.add (local.get $n)
        (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $q)) (local.get $bv))))))
      (local.set $q (i32.add (local.get $q) (i32.const 16)))
      (br $step)))
  (local.set $left (i32.sub (local.get $end) (local.get $q)))
  (if (i32.gt_s (local.get $left) (i32.const 0))
    (then
      (local.set $n (i32.add (local.get $n) (i32.popcnt (i32.and
        (i8x16.bitmask (i8x16.eq (v128.load (local.get $q)) (local.get $bv)))
        (i32.sub (i32.shl (i32.const 1) (local.get $left)) (i32.const 1))))))))
  (local.get $n))`;

/** The kernel's WebAssembly text, as written to `grep_kernel.wat`. */
export function moduleText(): string {
  return [
    ";; Generated by scripts/build_grep_kernel.ts: edit that script, not this file.",
    "(module",
    '(import "env" "memory" (memory 1 65536 shared))',
    matches(),
    findWord(true),
    findWord(false),
    COUNT_BYTE,
    ")",
    "",
  ].join("\n");
}

if (import.meta.main) {
  await writeKernel({
    stem: "grep",
    dir: "lib/grep/kernel",
    text: moduleText(),
    constant: "GREP_KERNEL_BASE64",
    title: "The assembled byte-scan kernel",
  });
}
