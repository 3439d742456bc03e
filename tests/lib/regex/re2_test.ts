import assert from "node:assert/strict";
import { compileRegex, type Re2Regex } from "../../../lib/regex/re2.ts";
import {
  exhaustHeapForTest,
  loadEngine,
  re2HeapProbe,
  Re2MemoryError,
  re2Stats,
} from "../../../lib/regex/re2_instance.ts";
import { withinCpu } from "../../support/cpu_time.ts";

async function regex(pattern: string, caseSensitive = false): Promise<Re2Regex> {
  const compiled = await compileRegex(pattern, { caseSensitive });
  if (!compiled.ok) throw new Error(`did not compile: ${compiled.message}`);
  return compiled.regex;
}

Deno.test("re2 finds leftmost matches, ignoring case unless asked", async () => {
  const cases: Array<{ pattern: string; caseSensitive?: boolean; subject: string; want: unknown }> =
    [
      { pattern: "b+c", subject: "aabbbcc", want: { index: 2, text: "bbbc" } },
      { pattern: "B+C", subject: "aabbbcc", want: { index: 2, text: "bbbc" } },
      { pattern: "B+C", caseSensitive: true, subject: "aabbbcc", want: null },
      {
        pattern: "\\bqu[a-z]*ka\\d+\\b",
        subject: "x qulaka42 y",
        want: { index: 2, text: "qulaka42" },
      },
      { pattern: "^abc$", subject: "abc", want: { index: 0, text: "abc" } },
      { pattern: "(?P<year>\\d{4})", subject: "in 2024", want: { index: 3, text: "2024" } },
      { pattern: "(?<year>\\d{4})", subject: "in 2024", want: { index: 3, text: "2024" } },
      { pattern: "\\u00e9t\\u{E9}", subject: "un été", want: { index: 3, text: "été" } },
    ];
  for (const c of cases) {
    const re = await regex(c.pattern, c.caseSensitive);
    assert.deepEqual(re.search(c.subject), c.want, c.pattern);
  }
});

Deno.test("re2 reports match positions in code points, for strings and UTF-8 bytes", async () => {
  const re = await regex("x");
  // 😀 is two UTF-16 units but one code point; é is one unit, two UTF-8 bytes.
  assert.deepEqual(re.search("😀é😀x"), { index: 3, text: "x" });
  assert.deepEqual(re.search(new TextEncoder().encode("😀é😀x")), { index: 3, text: "x" });
});

Deno.test("re2 matches ReDoS patterns on 100,000 characters in linear time", async () => {
  const cases = [
    { pattern: "(a+)+$", subject: "a".repeat(100_000) + "!", want: null },
    { pattern: "(a+)+$", subject: "a".repeat(100_000), want: 0 },
    { pattern: "(x+x+)+y", subject: "x".repeat(100_000), want: null },
    { pattern: "(x+x+)+y", subject: "x".repeat(100_000) + "y", want: 0 },
    { pattern: "(a|aa)*b", subject: "a".repeat(100_000), want: null },
  ];
  for (const c of cases) {
    const re = await regex(c.pattern);
    // V8's backtracking engine needs longer than the age of the universe here.
    const found = withinCpu(2000, () => re.search(c.subject), c.pattern);
    assert.equal(found?.index ?? null, c.want, c.pattern);
  }
});

Deno.test("compileRegex refuses what RE2 cannot do, saying why and what to do", async () => {
  const cases: Array<{ pattern: string; reason: string; message: string }> = [
    {
      pattern: "(a)\\1",
      reason: "unsupported",
      message: "Regex not accepted: back-references such as \\1 are not supported. The regex " +
        "engine is RE2, which guarantees linear-time matching and so cannot do this; repeat " +
        "the text explicitly instead, or search plain words (regex: false).",
    },
    {
      pattern: "(?<w>a)\\k<w>",
      reason: "unsupported",
      message: "Regex not accepted: back-references such as \\k<name> are not supported. The " +
        "regex engine is RE2, which guarantees linear-time matching and so cannot do this; " +
        "repeat the text explicitly instead, or search plain words (regex: false).",
    },
    {
      pattern: "foo(?=bar)",
      reason: "unsupported",
      message: 'Regex not accepted: look-ahead such as "(?=...)" is not supported. The regex ' +
        "engine is RE2, which guarantees linear-time matching and so cannot do this; match the " +
        "surrounding text as part of the pattern instead, or search plain words (regex: false).",
    },
    {
      pattern: "foo(?!bar)",
      reason: "unsupported",
      message: 'Regex not accepted: look-ahead such as "(?!...)" is not supported. The regex ' +
        "engine is RE2, which guarantees linear-time matching and so cannot do this; match the " +
        "surrounding text as part of the pattern instead, or search plain words (regex: false).",
    },
    {
      pattern: "(?<=\\$)\\d+",
      reason: "unsupported",
      message: 'Regex not accepted: look-behind such as "(?<=...)" is not supported. The regex ' +
        "engine is RE2, which guarantees linear-time matching and so cannot do this; match the " +
        "surrounding text as part of the pattern instead, or search plain words (regex: false).",
    },
    {
      pattern: "a".repeat(201),
      reason: "too_long",
      message: "The regex is 201 characters long; at most 200 are allowed. Use a shorter " +
        "pattern, or plain words (regex: false).",
    },
    {
      pattern: "a(b",
      reason: "syntax",
      message: "Invalid regex /a(b/: missing ): a(b. Patterns use RE2 syntax (no " +
        "back-references or look-around); fix the pattern, or search plain words (regex: false).",
    },
    {
      pattern: "a++",
      reason: "syntax",
      message: "Invalid regex /a++/: bad repetition operator: ++. Patterns use RE2 syntax (no " +
        "back-references or look-around); fix the pattern, or search plain words (regex: false).",
    },
    {
      pattern: "\\pL{1000}",
      reason: "too_large",
      message: "The regex /\\pL{1000}/ compiles to more than the regex engine's memory holds. " +
        "Use fewer or smaller repetitions (e.g. {3} instead of {300}) and narrower classes, or " +
        "search plain words (regex: false).",
    },
  ];
  for (const c of cases) {
    const compiled = await compileRegex(c.pattern);
    assert.equal(compiled.ok, false, c.pattern);
    if (compiled.ok) continue;
    assert.equal(compiled.reason, c.reason, c.pattern);
    assert.equal(compiled.message, c.message, c.pattern);
  }
  // Exactly 200 characters is fine; an escaped backslash before a digit is no back-reference.
  assert.equal((await compileRegex("a".repeat(200))).ok, true);
  assert.equal((await compileRegex("\\\\1")).ok, true);
  assert.equal((await compileRegex("[(?=]")).ok, true);
});

Deno.test("a 6 MB subject is a Re2MemoryError, and the next call works", async () => {
  const re = await regex("b+c");
  assert.throws(
    () => re.search(new Uint8Array(7_000_000).fill(97)),
    (error: unknown) =>
      error instanceof Re2MemoryError &&
      error.message === "The regex engine ran out of memory on this pattern and text. Use a " +
          "simpler pattern (fewer alternatives or repetitions), or search plain words " +
          "(regex: false).",
  );
  assert.deepEqual(re.search("abbc"), { index: 1, text: "bbc" });
});

Deno.test("a full heap is replaced by a fresh instance and the call still answers", async () => {
  const re = await regex("b+c");
  assert.ok(re.search("abc"));
  const before = re2Stats();
  exhaustHeapForTest();
  // Needs more than the few bytes left: the engine aborts, which must not escape.
  const subject = "a".repeat(300_000) + "bbc";
  assert.deepEqual(re.search(subject), { index: 300_000, text: "bbc" });
  const after = re2Stats();
  assert.equal(after.abortRecycles, before.abortRecycles + 1);
  assert.equal(after.instances, before.instances + 1);
});

Deno.test("a heap filling up is replaced before it runs out", async () => {
  const re = await regex("b+c");
  assert.ok(re.search("abc"));
  exhaustHeapForTest(8 * 1024 * 1024);
  const before = re2Stats();
  for (let i = 0; i < 40; i++) {
    const compiled = await compileRegex(`probe${i}[0-9]+`);
    assert.ok(compiled.ok);
    assert.equal(compiled.regex.search(`x probe${i}42`)?.index, 2);
  }
  const after = re2Stats();
  assert.equal(after.proactiveRecycles, before.proactiveRecycles + 1);
  assert.equal(after.abortRecycles, before.abortRecycles);
});

Deno.test("replaced instances are released (memory stays bounded over 160 recycles)", async () => {
  const re = await regex("b+c");
  const subject = new Uint8Array(300_000).fill(97);
  const before = Deno.memoryUsage().rss;
  for (let i = 0; i < 160; i++) {
    exhaustHeapForTest();
    assert.equal(re.search(subject), null);
  }
  const grownMb = (Deno.memoryUsage().rss - before) / 1e6;
  // Keeping each discarded 16 MiB instance alive grows RSS by ~1.5 MB a recycle (~250 MB
  // here); released, it levels off well under 100 MB.
  assert.ok(grownMb < 160, `RSS grew ${grownMb.toFixed(0)} MB`);
});

Deno.test("rejected patterns are freed: 4,000 invalid patterns leave the heap where it was", async () => {
  await loadEngine();
  const re = await regex("warm-?up");
  re.search("warm up");
  const before = re2Stats();
  const probeBefore = re2HeapProbe()!;
  for (let i = 0; i < 4_000; i++) {
    const compiled = await compileRegex(`w${i}(x|y`);
    assert.equal(compiled.ok, false);
  }
  // Each leaked rejected pattern keeps ~250 bytes of the heap: 1 MB here.
  const crept = re2HeapProbe()! - probeBefore;
  assert.ok(crept < 256 * 1024, `heap grew by ${crept} bytes`);
  assert.equal(re2Stats().instances, before.instances);
  assert.deepEqual(re.search("a warmup"), { index: 2, text: "warmup" });
});

Deno.test("compiled patterns beyond the cache are freed (LRU of 8)", async () => {
  const before = re2Stats();
  for (let i = 0; i < 50; i++) await regex(`lru${i}[0-9]+`);
  const after = re2Stats();
  assert.equal(after.cached, 8);
  assert.ok(after.evictions - before.evictions >= 42);
});

Deno.test("the engine loads in a worker that has no permissions", async () => {
  const url = new URL("../../../lib/regex/re2.ts", import.meta.url).href;
  const code = `
    import { compileRegex } from ${JSON.stringify(url)};
    const read = (await Deno.permissions.query({ name: "read", path: "/" })).state;
    const compiled = await compileRegex("w(o+)rld");
    self.postMessage({ read, found: compiled.ok ? compiled.regex.search("hello woorld") : null });
  `;
  const worker = new Worker(`data:application/typescript,${encodeURIComponent(code)}`, {
    type: "module",
    deno: { permissions: "none" },
  });
  try {
    const message = await new Promise((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
    });
    const { read, found } = message as { read: string; found: unknown };
    assert.notEqual(read, "granted", "the worker must not be able to read files");
    assert.deepEqual(found, { index: 6, text: "woorld" });
  } finally {
    worker.terminate();
  }
});
