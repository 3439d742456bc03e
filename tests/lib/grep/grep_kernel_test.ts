import assert from "node:assert/strict";
import {
  KernelBytes,
  type KernelWord,
  MAX_WORD_BYTES,
  needleWords,
  type PairByte,
} from "../../../lib/grep/grep_kernel.ts";
import { prng } from "../../../scripts/synthetic_corpus.ts";

function kernelOf(data: Uint8Array): KernelBytes {
  return KernelBytes.filled(data.length, (view) => {
    view.set(data);
    return data.length;
  });
}

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** A kernel word for `text` with its pair bytes at offsets `a <= b` (`single`: a alone). */
function wordOf(text: string, fold: boolean, a = 0, b = a, single = false): KernelWord {
  const needle = bytesOf(text);
  const pair = (at: number): PairByte => {
    const value = needle[at];
    return { at, value, mask: fold && value >= 97 && value <= 122 ? 0x20 : 0 };
  };
  return {
    text,
    needle,
    words: needleWords(needle),
    first: pair(a),
    second: pair(single ? a : b),
    fold,
    single,
  };
}

/** The first start in [from, lastStart] where the word matches, by a plain loop. */
function naive(data: Uint8Array, word: KernelWord, from: number, lastStart: number): number {
  for (let s = from; s <= lastStart; s++) {
    let j = 0;
    while (j < word.needle.length) {
      let h = data[s + j];
      if (word.fold && h >= 65 && h <= 90) h |= 0x20;
      if (h !== word.needle[j]) break;
      j++;
    }
    if (j === word.needle.length) return s;
  }
  return -1;
}

Deno.test("findWord finds what a naive loop finds, at every data length, pair and start", () => {
  const random = prng(11);
  const letters = "aAbB k";
  for (let length = 0; length <= 130; length++) {
    // Few byte values, so that pairs and words match often, and any byte now and then.
    const data = Uint8Array.from(
      { length },
      () =>
        random() < 0.1
          ? Math.floor(random() * 256)
          : letters.charCodeAt(Math.floor(random() * letters.length)),
    );
    const kernel = kernelOf(data);
    for (let q = 0; q < 16; q++) {
      const size = 1 + Math.floor(random() * Math.min(random() < 0.5 ? 6 : 32, length + 1));
      // A piece of the data (lower-cased, so it matches with folding), sometimes with one
      // byte changed near its end: a near miss the pair test lets through.
      const start = Math.floor(random() * (length - size + 1));
      const piece = [...data.subarray(start, start + size)].map((b) =>
        b >= 65 && b <= 90 ? b | 0x20 : b
      );
      if (random() < 0.4) piece[size - 1 - Math.floor(random() * Math.min(3, size))] = 0x7a;
      const text = String.fromCharCode(...piece);
      const fold = random() < 0.7;
      const a = Math.floor(random() * size);
      const b = a + Math.floor(random() * (size - a));
      const single = random() < 0.4;
      const word = wordOf(text, fold, a, b, single);
      const lastStart = length - size - Math.floor(random() * 3);
      for (let from = 0; from <= Math.max(lastStart + 1, 0); from += 1 + Math.floor(random() * 5)) {
        assert.equal(
          kernel.findWord(word, from, lastStart),
          naive(data, word, from, lastStart),
          `length ${length}, word ${JSON.stringify(text)} pair ${a},${b} single ${single} ` +
            `fold ${fold}, ` +
            `from ${from} to ${lastStart}`,
        );
      }
    }
  }
});

Deno.test("a one-byte word matches in the last byte, and a two-byte one in the last two", () => {
  for (let length = 1; length <= 70; length++) {
    const data = new Uint8Array(length).fill(0x2e);
    data[length - 1] = 0x51; // "Q"
    const kernel = kernelOf(data);
    for (const single of [false, true]) {
      assert.equal(kernel.findWord(wordOf("q", true, 0, 0, single), 0, length - 1), length - 1);
      // Case-sensitive: "q" is not "Q".
      assert.equal(kernel.findWord(wordOf("q", false, 0, 0, single), 0, length - 1), -1);
    }
    if (length >= 2) {
      data[length - 2] = 0x70; // "pQ"
      const pair = kernelOf(data);
      for (const word of [wordOf("pq", true, 0, 1), wordOf("pq", true, 1, 1, true)]) {
        assert.equal(pair.findWord(word, 0, length - 2), length - 2);
        // A last start one short of the match leaves it out.
        assert.equal(pair.findWord(word, 0, length - 3), -1);
      }
    }
  }
});

Deno.test("many pair candidates that are not the word are passed over, in one block and across blocks", () => {
  // Every "th" is a candidate for the pair (t, h); only the last is "the".
  const text = "th".repeat(3000) + "the";
  const kernel = kernelOf(bytesOf(text));
  const word = wordOf("the", true, 0, 1);
  assert.equal(kernel.findWord(word, 0, text.length - 3), text.length - 3);
  // All 32 positions of a step are candidates of a one-byte pair; the match is the last.
  const dense = "a".repeat(63) + "b";
  const aab = kernelOf(bytesOf(dense));
  assert.equal(aab.findWord(wordOf("ab", false, 0, 0), 0, dense.length - 2), 62);
  assert.equal(aab.findWord(wordOf("ab", false, 0, 0), 63, dense.length - 2), -1);
});

Deno.test("case folding touches only ASCII letters: bytes from 0x80 up never match a letter", () => {
  const data = Uint8Array.from({ length: 256 }, (_, i) => i);
  const kernel = kernelOf(data);
  for (const letter of "az") {
    const value = letter.charCodeAt(0);
    assert.equal(kernel.findWord(wordOf(letter, true), 0, 255), value - 32);
    assert.equal(kernel.findWord(wordOf(letter, true), value - 31, 255), value);
    assert.equal(kernel.findWord(wordOf(letter, true), value + 1, 255), -1);
  }
  // "[" (0x5b) and "{" (0x7b) differ by 0x20 but are not letters: never folded.
  assert.equal(kernel.findWord(wordOf("{", true), 0, 255), 0x7b);
});

Deno.test("many distinct words searched in turn each find their own places", () => {
  // The needle comes in as arguments: nothing of one search stays in the memory for the next.
  const words = Array.from({ length: 200 }, (_, i) => `w${String(i).padStart(3, "0")}`);
  const text = words.join(" ");
  const kernel = kernelOf(bytesOf(text));
  for (let round = 0; round < 3; round++) {
    for (const [i, w] of words.entries()) {
      assert.equal(kernel.findWord(wordOf(w, false, 0, 3), 0, text.length - 4), i * 5);
    }
  }
});

Deno.test("a word of 32 bytes is compared in full; an empty or longer one is refused", () => {
  // A hostile case for a byte-by-byte check: every position is a pair candidate that
  // shares 31 bytes with the word.
  const word = "a".repeat(MAX_WORD_BYTES);
  const text = ("a".repeat(MAX_WORD_BYTES - 1) + "b").repeat(500) + word;
  const kernel = kernelOf(bytesOf(text));
  assert.equal(kernel.findWord(wordOf(word, true), 0, text.length - 32), text.length - 32);
  assert.equal(kernel.findWord(wordOf(word.slice(1) + "b", true), 0, text.length - 32), 0);
  for (const bad of ["", "a".repeat(MAX_WORD_BYTES + 1)]) {
    assert.throws(() => kernel.findWord(wordOf(bad, false), 0, 0), {
      name: "RangeError",
      message: `the kernel searches words of 1 to ${MAX_WORD_BYTES} bytes, not ${bad.length}`,
    });
  }
});

Deno.test("KernelBytes.filled asks once more when the fill needs more room than the first guess", () => {
  let calls = 0;
  const kernel = KernelBytes.filled(4, (view) => {
    calls++;
    if (view.length < 100_000) return 100_000;
    view.fill(7);
    return 100_000;
  });
  assert.equal(calls, 2);
  assert.equal(kernel.bytes.length, 100_000);
  assert.ok(kernel.bytes.every((b) => b === 7));
});

Deno.test("KernelBytes refuses data that cannot fit in a wasm32 memory", () => {
  assert.throws(() => KernelBytes.filled(2 ** 32, () => 0), {
    name: "RangeError",
    message: "4294967296 bytes do not fit in a WebAssembly memory (4 GiB at most)",
  });
});

Deno.test("countByte counts what a plain loop counts, at every length and start", () => {
  const random = prng(5);
  for (let length = 0; length <= 100; length++) {
    const data = Uint8Array.from({ length }, () => (random() < 0.3 ? 10 : 97));
    const kernel = kernelOf(data);
    for (let from = 0; from <= length; from += 1 + Math.floor(random() * 3)) {
      for (let to = from; to <= length; to += 1 + Math.floor(random() * 7)) {
        let want = 0;
        for (let i = from; i < to; i++) if (data[i] === 10) want++;
        assert.equal(kernel.countByte(10, from, to), want, `length ${length} [${from}, ${to})`);
      }
    }
    assert.equal(kernel.countByte(10, 5, 3), 0);
  }
});
