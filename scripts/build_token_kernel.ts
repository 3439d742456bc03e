/**
 * Generates the WebAssembly SIMD tokenizer kernel of the BM25 index build:
 * writes `lib/lexical/kernel/token_kernel.wat` (the source) and
 * `lib/lexical/kernel/token_kernel_bytes.ts` (the assembled module,
 * base64, so it loads with no permission and inside a compiled binary).
 *
 * Assembles with the npm package `wabt` (see wasm_kernel.ts). Run after changing this file:
 *
 *     deno run --allow-write=lib/lexical/kernel --allow-read=lib/lexical/kernel scripts/build_token_kernel.ts
 *
 * The module imports its memory (`env.memory`, laid out by
 * `lib/lexical/token_kernel.ts`) and exports one function:
 *
 * `scan(p, end, count, out, outCap, slots, mask, abbr) -> status`: step 2 of
 * the tokenizer rule (tokenizer.ts) for ASCII text, fused with the
 * surface-form lookup; `abbr` (0 or 1) joins letter-dot abbreviations
 * (`abbreviations: keep`). It finds the tokens of the bytes `[p, end)` (memory addresses; the
 * bytes from `end` on must be zero for 192 bytes), hashes each lower-cased
 * token, looks it up in the surface table at `slots` (`mask + 1` slots of 16
 * bytes, laid out as token_kernel.ts says) and appends the value found to the ids at `out` (count so far
 * `count`, room for `outCap`), skipping the stopword value -1. It returns 0
 * when the text is done, 1 when a token is not in the table, 2 when `out` is
 * full; in every case the header at address 0 holds the ids written so far
 * (i32 at 0), and for 1 and 2 the token's start and end addresses (4, 8) and
 * its hash (12): the caller learns the token or makes room and calls again
 * from its start. `p` must be the start of the text or the start of a token
 * (the byte before is then read as a separator, which is exact there).
 *
 * How, 64 bytes a step: four vector loads; per class (letter, digit,
 * apostrophe, dot, comma) an `i8x16` compare and `i8x16.bitmask`, put
 * together into one 64-bit mask per class. The rule's context (an
 * apostrophe between two letters, a dot between two digits, a comma after a
 * digit followed by exactly three digits) is shifts of those masks, with the
 * next step's masks for the bits past the end and a carry for the bit
 * before (the whole previous masks of letters and apostrophes for the
 * abbreviation dots, which look two and three bytes back). Word bytes `W` and number bytes `N` are then two masks; a token
 * starts where `W` or `N` starts and ends where it ends, and the starts and
 * ends are visited with `ctz` in order. Lower-casing is an OR with 0x20 of
 * every byte of a token: it maps A-Z to a-z and leaves the other bytes a
 * token can hold (a-z, 0-9, `'`, `.`, `,`: all have bit 5 set) unchanged. The
 * hash is a multiply-xor over the token's 8-byte words (the last one masked
 * to the token). A slot holds the hash, the value and a key of up to 8
 * bytes itself (one compare of a 64-bit word); a longer key is in a pool,
 * compared 8 bytes a step. Slots of 16 bytes rather than 32 (with 16 key
 * bytes inline) made the warm lookups ~20% faster at 300k surface forms: the
 * table is 8 MB instead of 16, and the misses on rare forms are what costs.
 *
 * @module
 */

import { writeKernel } from "./wasm_kernel.ts";

/** Multiplier of the hash (the 64-bit golden ratio). */
const K = "0x9e3779b97f4a7c15";
/** The five class masks of a 64-byte step, by name prefix. */
const CLASSES = ["L", "D", "A", "P", "C"] as const;

/** `i8x16` constant with every lane `value`. */
function splat(value: number): string {
  return `(v128.const i8x16 ${`${value} `.repeat(16).trim()})`;
}

/** 16-bit class masks of the vector in `$v`, or'ed into the i64 masks at bit `shift`. */
function classify16(target: string, shift: number): string {
  const bits = (expr: string) =>
    shift === 0
      ? `(i64.extend_i32_u (i8x16.bitmask ${expr}))`
      : `(i64.shl (i64.extend_i32_u (i8x16.bitmask ${expr})) (i64.const ${shift}))`;
  const masks: Record<(typeof CLASSES)[number], string> = {
    // A letter: (v | 0x20) - 'a' < 26 unsigned.
    L: `(i8x16.lt_u (i8x16.sub (v128.or (local.get $v) ${splat(32)}) ${splat(97)}) ${splat(26)})`,
    D: `(i8x16.lt_u (i8x16.sub (local.get $v) ${splat(48)}) ${splat(10)})`,
    A: `(i8x16.eq (local.get $v) ${splat(39)})`,
    P: `(i8x16.eq (local.get $v) ${splat(46)})`,
    C: `(i8x16.eq (local.get $v) ${splat(44)})`,
  };
  return CLASSES.map((c) =>
    `(local.set $${target}${c} (i64.or (local.get $${target}${c}) ${bits(masks[c])}))`
  ).join("\n    ");
}

/** Class masks of the 64 bytes at `$q` into `$<target>L` ... `$<target>C`. */
function classify64(target: string): string {
  const parts = [CLASSES.map((c) => `(local.set $${target}${c} (i64.const 0))`).join(" ")];
  for (let k = 0; k < 4; k++) {
    parts.push(`(local.set $v (v128.load offset=${16 * k} (local.get $q)))`);
    parts.push(classify16(target, 16 * k));
  }
  return parts.join("\n    ");
}

/** `x` shifted so bit i holds bit i + k of the 128-bit pair (next:cur). */
function ahead(cur: string, next: string, k: number): string {
  return `(i64.or (i64.shr_u (local.get ${cur}) (i64.const ${k})) (i64.shl (local.get ${next}) (i64.const ${
    64 - k
  })))`;
}

/** `x` shifted so bit i holds bit i - 1, the carry in bit 0. */
function behind(cur: string, carry: string): string {
  return `(i64.or (i64.shl (local.get ${cur}) (i64.const 1)) (local.get ${carry}))`;
}

/** `x` shifted so bit i holds bit i - k of the 128-bit pair (cur:prev). */
function behindBy(cur: string, prev: string, k: number): string {
  return `(i64.or (i64.shl (local.get ${cur}) (i64.const ${k})) (i64.shr_u (local.get ${prev}) (i64.const ${
    64 - k
  })))`;
}

/** `(not x)` of an i64 expression. */
function not(expr: string): string {
  return `(i64.xor ${expr} (i64.const -1))`;
}

/** The 8 bytes at `addr`, lower-cased, masked to the first `left` (1..) of them. */
function word(addr: string, left: string): string {
  return `(i64.and (i64.or (i64.load ${addr}) (i64.const 0x2020202020202020))
        (select (i64.const -1)
          (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl ${left} (i32.const 3)))) (i64.const 1))
          (i32.ge_u ${left} (i32.const 8))))`;
}

/** `$lh`: the hash of the token `[$ls, $le)` (`$len` bytes). */
const HASH =
  `(local.set $h (i64.mul (i64.xor (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const ${K}))
          ${word("(local.get $ls)", "(local.get $len)")}) (i64.const ${K})))
        (local.set $r (i32.add (local.get $ls) (i32.const 8)))
        (block $hashed (loop $more
          (br_if $hashed (i32.ge_u (local.get $r) (local.get $le)))
          (local.set $h (i64.mul (i64.xor (local.get $h)
            ${
    word("(local.get $r)", "(i32.sub (local.get $le) (local.get $r))")
  }) (i64.const ${K})))
          (local.set $r (i32.add (local.get $r) (i32.const 8)))
          (br $more)))
        (local.set $lh (i32.wrap_i64 (i64.shr_u (local.get $h) (i64.const 32))))`;

/** Closing the token `[$open, $pos)`: hashes it, looks it up and appends its value. */
function close(): string {
  return `(local.set $ls (local.get $open))
        (local.set $le (local.get $pos))
        (local.set $len (i32.sub (local.get $le) (local.get $ls)))
        ${HASH}
        ${emit()}`;
}

/**
 * Looks up the token `[$ls, $le)` and appends its value, unless it is -1 (a
 * stopword); returns 1 (not in the table) or 2 (no room in `out`) with the
 * header written, and the caller calls again from that token.
 */
function emit(): string {
  return `${LOOKUP}
            (if (i32.ne (local.get $value) (i32.const -1))
              (then
                (if (i32.or (i32.eq (local.get $value) (i32.const -2)) (i32.ge_u (local.get $count) (local.get $outCap)))
                  (then
                    (i32.store (i32.const 0) (local.get $count))
                    (i32.store (i32.const 4) (local.get $ls))
                    (i32.store (i32.const 8) (local.get $le))
                    (i32.store (i32.const 12) (local.get $lh))
                    (return (select (i32.const 1) (i32.const 2) (i32.eq (local.get $value) (i32.const -2))))))
                (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (local.get $value))
                (local.set $count (i32.add (local.get $count) (i32.const 1)))))`;
}

/**
 * Sets `$value` to the value of the token `[$ls, $le)` (hash `$lh`) in the
 * table, or -2 when the table does not hold it.
 */
const LOOKUP = `(local.set $len (i32.sub (local.get $le) (local.get $ls)))
            (local.set $w0 ${word("(local.get $ls)", "(local.get $len)")})
            (local.set $j (i32.and (local.get $lh) (local.get $mask)))
            (block $looked (loop $probe
              (local.set $slot (i32.add (local.get $slots) (i32.shl (local.get $j) (i32.const 4))))
              (local.set $key (i64.load offset=8 (local.get $slot)))
              (local.set $value (i32.const -2))
              (br_if $looked (i64.eqz (local.get $key)))
              (if (i32.eq (i32.load (local.get $slot)) (local.get $lh))
                (then
                  (if (i32.le_u (local.get $len) (i32.const 8))
                    (then
                      (if (i64.eq (local.get $key) (local.get $w0))
                        (then
                          (local.set $value (i32.load offset=4 (local.get $slot)))
                          (br $looked))))
                    (else
                      ;; A long key: its length (<< 8) and its bytes' address in the pool
                      ;; (zero-padded to 8), compared 8 bytes a step.
                      (if (i32.eq (i32.wrap_i64 (local.get $key)) (i32.shl (local.get $len) (i32.const 8)))
                        (then
                          (local.set $r (local.get $ls))
                          (local.set $k (i32.wrap_i64 (i64.shr_u (local.get $key) (i64.const 32))))
                          (block $differ (loop $rest
                            (if (i32.ge_u (local.get $r) (local.get $le))
                              (then
                                (local.set $value (i32.load offset=4 (local.get $slot)))
                                (br $looked)))
                            (br_if $differ (i64.ne (i64.load (local.get $k))
                              ${
  word("(local.get $r)", "(i32.sub (local.get $le) (local.get $r))")
}))
                            (local.set $r (i32.add (local.get $r) (i32.const 8)))
                            (local.set $k (i32.add (local.get $k) (i32.const 8)))
                            (br $rest)))))))))
              (local.set $j (i32.and (i32.add (local.get $j) (i32.const 1)) (local.get $mask)))
              (br $probe)))`;

/** The `scan` function. */
function scan(): string {
  const locals64 = [
    ...CLASSES.map((c) => `$c${c}`),
    ...CLASSES.map((c) => `$n${c}`),
    "$carryL",
    "$carryD",
    "$carryW",
    "$carryN",
    "$W",
    "$N",
    "$pW",
    "$pN",
    "$pL",
    "$pD",
    "$n1D",
    "$S",
    "$X",
    "$ev",
    "$bit",
    "$h",
    "$w0",
    "$key",
    "$prevL",
    "$prevA",
    "$J",
    "$abbrMask",
  ];
  const locals32 = [
    "$q",
    "$open",
    "$pos",
    "$len",
    "$r",
    "$value",
    "$ls",
    "$le",
    "$lh",
    "$j",
    "$slot",
    "$k",
  ];
  return `(func (export "scan") (param $p i32) (param $end i32) (param $count i32) (param $out i32)
  (param $outCap i32) (param $slots i32) (param $mask i32) (param $abbr i32) (result i32)
  (local $v v128)
  ${locals64.map((l) => `(local ${l} i64)`).join(" ")}
  ${locals32.map((l) => `(local ${l} i32)`).join(" ")}
  (local.set $abbrMask (i64.sub (i64.const 0) (i64.extend_i32_u (i32.ne (local.get $abbr) (i32.const 0)))))
  (local.set $q (local.get $p))
  ${classify64("c")}
  (block $done (loop $step
    (br_if $done (i32.gt_u (local.get $p) (local.get $end)))
    (local.set $q (i32.add (local.get $p) (i32.const 64)))
    ${classify64("n")}
    (local.set $pL ${behind("$cL", "$carryL")})
    (local.set $pD ${behind("$cD", "$carryD")})
    (local.set $n1D ${ahead("$cD", "$nD", 1)})
    ;; Word bytes: letters, and an apostrophe between two letters.
    (local.set $W (i64.or (local.get $cL)
      (i64.and (i64.and (local.get $cA) (local.get $pL)) ${ahead("$cL", "$nL", 1)})))
    ;; Abbreviation dots (when $abbr): a dot between two letters that are words of one letter,
    ;; i.e. with no word byte two places before or after it. With a letter at i - 1, byte i - 2
    ;; is a word byte when it is a letter or an apostrophe after a letter (and symmetrically).
    (local.set $J (i64.and (i64.and (i64.and (local.get $cP) (local.get $abbrMask))
        (i64.and (local.get $pL) ${ahead("$cL", "$nL", 1)}))
      (i64.and
        ${
    not(
      `(i64.or ${behindBy("$cL", "$prevL", 2)} (i64.and ${behindBy("$cA", "$prevA", 2)} ${
        behindBy("$cL", "$prevL", 3)
      }))`,
    )
  }
        ${
    not(
      `(i64.or ${ahead("$cL", "$nL", 2)} (i64.and ${ahead("$cA", "$nA", 2)} ${
        ahead("$cL", "$nL", 3)
      }))`,
    )
  })))
    (local.set $W (i64.or (local.get $W) (local.get $J)))
    ;; Number bytes: digits, a dot between two digits, a comma after a digit and before
    ;; exactly three digits.
    (local.set $N (i64.or (i64.or (local.get $cD)
      (i64.and (i64.and (local.get $cP) (local.get $pD)) (local.get $n1D)))
      (i64.and (i64.and (i64.and (local.get $cC) (local.get $pD)) (i64.and (local.get $n1D) ${
    ahead("$cD", "$nD", 2)
  }))
        (i64.and ${ahead("$cD", "$nD", 3)} (i64.xor ${ahead("$cD", "$nD", 4)} (i64.const -1))))))
    (local.set $pW ${behind("$W", "$carryW")})
    (local.set $pN ${behind("$N", "$carryN")})
    ;; Starts, and ends (bit i: a token ends before byte i).
    (local.set $S (i64.or (i64.and (local.get $W) (i64.xor (local.get $pW) (i64.const -1)))
      (i64.and (local.get $N) (i64.xor (local.get $pN) (i64.const -1)))))
    (local.set $X (i64.or (i64.and (local.get $pW) (i64.xor (local.get $W) (i64.const -1)))
      (i64.and (local.get $pN) (i64.xor (local.get $N) (i64.const -1)))))
    (local.set $ev (i64.or (local.get $S) (local.get $X)))
    (block $visited (loop $event
      (br_if $visited (i64.eqz (local.get $ev)))
      (local.set $bit (i64.and (local.get $ev) (i64.sub (i64.const 0) (local.get $ev))))
      (local.set $pos (i32.add (local.get $p) (i32.wrap_i64 (i64.ctz (local.get $ev)))))
      (if (i64.ne (i64.and (local.get $X) (local.get $bit)) (i64.const 0))
        (then
        ${close()}))
      (if (i64.ne (i64.and (local.get $S) (local.get $bit)) (i64.const 0))
        (then (local.set $open (local.get $pos))))
      (local.set $ev (i64.xor (local.get $ev) (local.get $bit)))
      (br $event)))
    (local.set $prevL (local.get $cL))
    (local.set $prevA (local.get $cA))
    (local.set $carryL (i64.shr_u (local.get $cL) (i64.const 63)))
    (local.set $carryD (i64.shr_u (local.get $cD) (i64.const 63)))
    (local.set $carryW (i64.shr_u (local.get $W) (i64.const 63)))
    (local.set $carryN (i64.shr_u (local.get $N) (i64.const 63)))
    ${CLASSES.map((c) => `(local.set $c${c} (local.get $n${c}))`).join(" ")}
    (local.set $p (i32.add (local.get $p) (i32.const 64)))
    (br $step)))
  (i32.store (i32.const 0) (local.get $count))
  (i32.const 0))`;
}

/** The kernel's WebAssembly text, as written to `token_kernel.wat`. */
export function moduleText(): string {
  return [
    ";; Generated by scripts/build_token_kernel.ts: edit that script, not this file.",
    "(module",
    '(import "env" "memory" (memory 1))',
    scan(),
    ")",
    "",
  ].join("\n");
}

if (import.meta.main) {
  await writeKernel({
    stem: "token",
    dir: "lib/lexical/kernel",
    text: moduleText(),
    constant: "TOKEN_KERNEL_BASE64",
    title: "The assembled SIMD tokenizer kernel",
  });
}
