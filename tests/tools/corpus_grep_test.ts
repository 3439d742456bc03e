import assert from "node:assert/strict";
import { corpusGrep } from "../../tools/corpus_grep.ts";
import { REGEX_TIME_BUDGET_MS } from "../../tools/corpus_grep_args.ts";
import { invokeTool, type RawToolResult } from "../../tools/invoke.ts";
import { parametersJsonSchema, type ToolDef } from "../../tools/define_tool.ts";
import type { Corpus } from "../../lib/types.ts";
import { re2HeapProbe, re2Stats } from "../../lib/regex/re2_instance.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";
import { lineStore } from "../../lib/grep/line_store.ts";
import { createRng } from "../../lib/util/prng.ts";
import { withinCpuAsync } from "../support/cpu_time.ts";

const tool = corpusGrep as unknown as ToolDef;

const corpus = corpusOf([
  {
    id: "report-2024",
    text: [
      "Annual report for 2024.",
      "Revenue grew to 1,250 million euros.",
      "The Harbor project was delayed.",
      "Operating margin: 12.5 percent.",
      "Outlook: revenue growth continues.",
    ].join("\n"),
  },
  {
    id: "memo",
    text: "Memo about the harbor.\nHARBOR budget approved.\nnothing here\nReport ends.",
  },
  { id: "unicode", text: "😀😀 café crème\nnaïve 😀 café\nZürich 2025" },
]);

function call(args: unknown, over: Corpus = corpus, maxResults = 50): Promise<RawToolResult> {
  return invokeTool(tool, args, contextFor(over, { options: { max_results: maxResults } }));
}

const outputs: Array<{ name: string; args: unknown; output: string; results?: unknown }> = [
  {
    name: "plain words match a line holding every word, in any order, ignoring case",
    args: { pattern: "revenue GREW" },
    output: [
      '1 matching line in 3 documents for all of the words "revenue" "GREW":',
      "report-2024-1- Annual report for 2024.",
      "report-2024:2: Revenue grew to 1,250 million euros.",
      "report-2024-3- The Harbor project was delayed.",
    ].join("\n"),
    results: [{ doc_id: "report-2024", line: 2, text: "Revenue grew to 1,250 million euros." }],
  },
  {
    name: "plain words are substrings, so a word finds longer words",
    args: { pattern: "port", context_lines: 0 },
    output: [
      '2 matching lines in 3 documents for the word "port":',
      "report-2024:1: Annual report for 2024.",
      "--",
      "memo:4: Report ends.",
    ].join("\n"),
  },
  {
    name: "case_sensitive matches letter case exactly",
    args: { pattern: "harbor", case_sensitive: true, context_lines: 0 },
    output: [
      '1 matching line in 3 documents for the word "harbor" (case-sensitive):',
      "memo:1: Memo about the harbor.",
    ].join("\n"),
  },
  {
    name: "words on different lines do not match",
    args: { pattern: "harbor budget delayed" },
    output: 'No line in 3 documents matches all of the words "harbor" "budget" "delayed". ' +
      "Every word must be on the same line: try fewer or shorter words, or regex: true.",
    results: [],
  },
  {
    name: "context lines are marked with - and touching groups merge; others are split by --",
    args: { pattern: "harbor", context_lines: 1 },
    output: [
      '3 matching lines in 3 documents for the word "harbor":',
      "report-2024-2- Revenue grew to 1,250 million euros.",
      "report-2024:3: The Harbor project was delayed.",
      "report-2024-4- Operating margin: 12.5 percent.",
      "--",
      "memo:1: Memo about the harbor.",
      "memo:2: HARBOR budget approved.",
      "memo-3- nothing here",
    ].join("\n"),
  },
  {
    name: "a regex uses RE2 syntax, ^ and $ at each line, ignoring case",
    args: { pattern: "^(revenue|outlook)\\b.*\\.$", regex: true, context_lines: 0 },
    output: [
      "2 matching lines in 3 documents for regex /^(revenue|outlook)\\b.*\\.$/i:",
      "report-2024:2: Revenue grew to 1,250 million euros.",
      "--",
      "report-2024:5: Outlook: revenue growth continues.",
    ].join("\n"),
  },
  {
    name: "a case-sensitive regex",
    args: { pattern: "[A-Z]{6}", regex: true, case_sensitive: true, context_lines: 0 },
    output: "1 matching line in 3 documents for regex /[A-Z]{6}/:\nmemo:2: HARBOR budget approved.",
  },
  {
    name: "doc_id searches one document",
    args: { pattern: "report", doc_id: "memo", context_lines: 0 },
    output: '1 matching line in document "memo" for the word "report":\nmemo:4: Report ends.',
  },
  {
    name: "doc_id is matched ignoring case and spaces when that is unambiguous",
    args: { pattern: "report", doc_id: " MEMO ", context_lines: 0 },
    output: '1 matching line in document "memo" for the word "report":\nmemo:4: Report ends.',
  },
  {
    name: "Unicode lines are attributed correctly after astral characters",
    args: { pattern: "café$", regex: true, context_lines: 0 },
    output: "1 matching line in 3 documents for regex /café$/i:\nunicode:2: naïve 😀 café",
  },
];

for (const c of outputs) {
  Deno.test(`corpus_grep: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.equal(result.error, null, JSON.stringify(result.error));
    assert.equal(result.output, c.output);
    if (c.results !== undefined) assert.deepEqual(result.data, { results: c.results });
  });
}

Deno.test("corpus_grep: data.results lists the matching lines in document and line order", async () => {
  const result = await call({ pattern: "e", max_results: 4 });
  assert.deepEqual(result.data, {
    results: [
      { doc_id: "report-2024", line: 1, text: "Annual report for 2024." },
      { doc_id: "report-2024", line: 2, text: "Revenue grew to 1,250 million euros." },
      { doc_id: "report-2024", line: 3, text: "The Harbor project was delayed." },
      { doc_id: "report-2024", line: 4, text: "Operating margin: 12.5 percent." },
    ],
  });
  assert.match(
    result.output.split("\n")[0],
    /^Showing 4 of 11 matching lines for the word "e"; narrow the pattern or raise max_results\.$/,
  );
});

Deno.test("corpus_grep: the option max_results is a hard cap on what the model asks", async () => {
  const lines = Array.from({ length: 120 }, (_, i) => `line ${i} match`).join("\n");
  const big = corpusOf([{ id: "big", text: lines }]);
  const result = await call({ pattern: "match", max_results: 1000, context_lines: 0 }, big, 50);
  assert.equal(result.error, null);
  const data = result.data as { results: unknown[] };
  assert.equal(data.results.length, 50);
  assert.equal(
    result.output.split("\n")[0],
    'Showing 50 of 120 matching lines for the word "match" (50 is the most per call); narrow ' +
      "the pattern or search one document with doc_id.",
  );
  // The default option (50) applies when the config sets none.
  const defaulted = await invokeTool(
    tool,
    { pattern: "match", max_results: 1000 },
    contextFor(big),
  );
  assert.equal((defaulted.data as { results: unknown[] }).results.length, 50);
  // Below the cap the model's own max_results counts.
  const small = await call({ pattern: "match", max_results: 7 }, big, 50);
  assert.equal((small.data as { results: unknown[] }).results.length, 7);
});

Deno.test("corpus_grep: the options schema declares max_results with default 50", () => {
  assert.deepEqual(corpusGrep.options?.parse({}), { max_results: 50 });
  assert.equal(corpusGrep.options?.safeParse({ max_results: 0 }).success, false);
  assert.equal(corpusGrep.options?.safeParse({ other: 1 }).success, false);
  const schema = parametersJsonSchema(tool) as { properties: Record<string, unknown> };
  assert.deepEqual(Object.keys(schema.properties), [
    "pattern",
    "regex",
    "case_sensitive",
    "doc_id",
    "context_lines",
    "max_results",
  ]);
});

Deno.test("corpus_grep: counting stops at 10,000 matching lines and says so", async () => {
  const many = corpusOf([{ id: "many", text: "hit\n".repeat(12_000) }]);
  const result = await call({ pattern: "hit", max_results: 2, context_lines: 0 }, many);
  assert.equal(
    result.output,
    'Showing 2 of more than 10000 matching lines for the word "hit"; narrow the pattern or ' +
      "raise max_results.\nmany:1: hit\nmany:2: hit",
  );
  const regex = await call({ pattern: "^h.t$", regex: true, max_results: 1 }, many);
  assert.match(regex.output, /^Showing 1 of more than 10000 matching lines/);
});

const errors: Array<{ name: string; args: unknown; kind: string; message: string }> = [
  {
    name: "an unknown doc_id is not_found with a did-you-mean",
    args: { pattern: "x", doc_id: "report-2042" },
    kind: "not_found",
    message: 'No document has the id "report-2042" — did you mean "report-2024"?',
  },
  {
    name: "an unknown doc_id with nothing close lists the ids of a small collection",
    args: { pattern: "x", doc_id: "zzzzzzzz" },
    kind: "not_found",
    message: 'No document has the id "zzzzzzzz". Known ids: "report-2024", "memo", "unicode".',
  },
  {
    name: "a back-reference is refused with what to do",
    args: { pattern: "(a)\\1", regex: true },
    kind: "invalid_args",
    message: "Regex not accepted: back-references such as \\1 are not supported. The regex " +
      "engine is RE2, which guarantees linear-time matching and so cannot do this; repeat the " +
      "text explicitly instead, or search plain words (regex: false).",
  },
  {
    name: "a look-ahead is refused with what to do",
    args: { pattern: "revenue(?= grew)", regex: true },
    kind: "invalid_args",
    message: 'Regex not accepted: look-ahead such as "(?=...)" is not supported. The regex ' +
      "engine is RE2, which guarantees linear-time matching and so cannot do this; match the " +
      "surrounding text as part of the pattern instead, or search plain words (regex: false).",
  },
  {
    name: "a regex over 200 characters is refused",
    args: { pattern: "(revenue)".repeat(23), regex: true },
    kind: "invalid_args",
    message: "The regex is 207 characters long; at most 200 are allowed. Use a shorter " +
      "pattern, or plain words (regex: false).",
  },
  {
    name: "invalid regex syntax is reported with RE2's reason",
    args: { pattern: "revenue[0-9", regex: true },
    kind: "invalid_args",
    message: "Invalid regex /revenue[0-9/: missing ]: [0-9. Patterns use RE2 syntax (no " +
      "back-references or look-around); fix the pattern, or search plain words (regex: false).",
  },
  {
    name: "a pattern of only spaces has no words",
    args: { pattern: "   " },
    kind: "invalid_args",
    message: "pattern has no words: give one or more words separated by spaces.",
  },
  {
    name: "context_lines is bounded",
    args: { pattern: "x", context_lines: 6 },
    kind: "invalid_args",
    message: 'Invalid arguments for corpus_grep: "context_lines": Too big: expected number to ' +
      "be <=5.",
  },
];

for (const c of errors) {
  Deno.test(`corpus_grep: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.equal(result.output, "");
    assert.deepEqual(result.error, { kind: c.kind, message: c.message });
  });
}

Deno.test("corpus_grep: ReDoS patterns on a 100,000-character line finish at once", async () => {
  const long = corpusOf([
    { id: "as", text: "a".repeat(100_000) + "!" },
    { id: "xs", text: "x".repeat(100_000) },
    { id: "short", text: "aaaa!\nxxy" },
  ]);
  const cases = [
    // Only the first 2000 characters of a line are searched, and $ is the real end of the line:
    // the long line ends in "!", so it does not match.
    { pattern: "(a+)+$", lines: [] },
    { pattern: "^(a+)+", lines: ["as:1", "short:1"] },
    { pattern: "(x+x+)+y", lines: ["short:2"] },
    { pattern: "(a|aa)*!", lines: ["short:1"] },
  ];
  for (const c of cases) {
    const result = await withinCpuAsync(
      2000,
      () => call({ pattern: c.pattern, regex: true, context_lines: 0 }, long),
      c.pattern,
    );
    assert.equal(result.error, null);
    const found = (result.data as { results: Array<{ doc_id: string; line: number }> }).results
      .map((r) => `${r.doc_id}:${r.line}`);
    assert.deepEqual(found, c.lines, c.pattern);
  }
});

Deno.test("corpus_grep: a regex that is slow on every long line stops at its time budget and says where", async () => {
  // RE2 is linear, but slow on nested counted repetitions over long lines that match: about 2 s
  // for each of these 2,000-character lines, so 40 of them would hold the tool for over a minute.
  const random = createRng(5);
  const letters = (n: number) =>
    Array.from({ length: n }, () => "abcdefghijk"[Math.floor(random() * 11)]).join("");
  const slow = corpusOf(
    Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, text: `${letters(1999)}!` })),
  );
  // The budget plus at most one engine call, with room to spare.
  const result = await withinCpuAsync(
    REGEX_TIME_BUDGET_MS + 20_000,
    () => call({ pattern: String.raw`(?:[a-k]{1,40}){1,25}!`, regex: true }, slow),
  );
  assert.equal(result.error, null);
  const data = result.data as { results: unknown[]; stopped_at: { doc_id: string; line: number } };
  assert.ok(data.results.length < 40, `${data.results.length} lines found`);
  assert.deepEqual(data.stopped_at, { doc_id: `d${data.results.length}`, line: 1 });
  assert.match(
    result.output,
    new RegExp(
      `Note: the search stopped after ${REGEX_TIME_BUDGET_MS / 1000} s of regex matching, at ` +
        `d${data.results.length}:1; that line and the rest of 40 documents were not searched\\. ` +
        "Large repetition counts such as \\{1,1000\\} make matching slow on long lines: " +
        "simplify the pattern, or search one document with doc_id\\.",
    ),
  );
});

Deno.test("corpus_grep: a match past column 2000 is not found; a long line is shown around its match", async () => {
  const text = "x".repeat(1500) + " early needle " + "y".repeat(1000) + " late marker";
  const long = corpusOf([{ id: "long", text }]);
  const late = await call({ pattern: "marker" }, long);
  assert.equal(
    late.output,
    'No line in 1 document matches the word "marker". Every word must be on the same line: ' +
      "try fewer or shorter words, or regex: true. Note: 1 line in 1 document is longer than " +
      "2000 characters; only the first 2000 characters of it were searched.",
  );
  const early = await call({ pattern: "needle", regex: true }, long);
  const shown = (early.data as { results: Array<{ text: string }> }).results[0].text;
  assert.equal(shown, `…${"x".repeat(73)} early needle ${"y".repeat(213)}…`);
  assert.equal([...shown].length, 302);
});

Deno.test("corpus_grep: 20,000 distinct regexes (some invalid) leave the tool answering correctly", async () => {
  const small = corpusOf([{ id: "s", text: "w17x here\nv3q there\nnothing" }]);
  // Warm up: load the engine and fill the small pattern cache once.
  for (let i = 0; i < 10; i++) await call({ pattern: `warm${i}`, regex: true }, small);
  const before = re2Stats();
  const probe = re2HeapProbe()!;
  let refused = 0;
  for (let i = 0; i < 20_000; i++) {
    const invalid = i % 5 === 0;
    const pattern = invalid ? `w${i}x(` : `w${i}x+`;
    const result = await call({ pattern, regex: true, case_sensitive: true }, small);
    if (invalid) {
      assert.equal(result.error?.kind, "invalid_args");
      refused++;
    } else {
      assert.equal(result.error, null);
      const hits = (result.data as { results: unknown[] }).results.length;
      assert.equal(hits, i === 17 ? 1 : 0, pattern);
    }
  }
  assert.equal(refused, 4_000);
  const after = re2Stats();
  assert.equal(after.abortRecycles, before.abortRecycles, "the engine never ran out of memory");
  assert.equal(after.proactiveRecycles, before.proactiveRecycles);
  assert.ok(after.compilations - before.compilations >= 20_000);
  const crept = re2HeapProbe()! - probe;
  assert.ok(crept < 256 * 1024, `the heap crept up by ${crept} bytes`);
  const result = await call({ pattern: "^v\\d[a-z]\\b", regex: true, context_lines: 0 }, small);
  assert.equal(
    result.output,
    "1 matching line in 1 document for regex /^v\\d[a-z]\\b/i:\ns:2: v3q there",
  );
});

Deno.test("corpus_grep: plain words ignore case for Greek final sigma too", async () => {
  const greek = corpusOf([{ id: "g", text: "ΟΔΟΣ ΠΟΛΗΣ\nάλλο" }]);
  for (const pattern of ["οδοσ", "ΟΔΟΣ", "οδος πολησ"]) {
    const result = await call({ pattern, context_lines: 0 }, greek);
    assert.deepEqual(result.data, { results: [{ doc_id: "g", line: 1, text: "ΟΔΟΣ ΠΟΛΗΣ" }] });
  }
});

Deno.test("corpus_grep: an empty collection matches nothing and has no document ids", async () => {
  const empty = corpusOf([]);
  assert.equal(
    (await call({ pattern: "x" }, empty)).output,
    'No line in 0 documents matches the word "x". Every word must be on the same line: try ' +
      "fewer or shorter words, or regex: true.",
  );
  assert.deepEqual((await call({ pattern: "x", doc_id: "a" }, empty)).error, {
    kind: "not_found",
    message: 'No document "a": the collection has no documents.',
  });
});

Deno.test("corpus_grep: capped within one document, the advice is to narrow the pattern", async () => {
  const lines = Array.from({ length: 60 }, (_, i) => `row ${i}`).join("\n");
  const big = corpusOf([{ id: "big", text: lines }]);
  const result = await call({ pattern: "row", doc_id: "big", max_results: 100 }, big, 5);
  assert.equal(
    result.output.split("\n")[0],
    'Showing 5 of 60 matching lines for the word "row" (5 is the most per call); narrow the ' +
      "pattern.",
  );
});

Deno.test("corpus_grep: ^x+$ does not match a 2,104-character line ending in END, and says it was cut", async () => {
  const long = corpusOf([{ id: "long", text: "x".repeat(2100) + " END\nxxx" }]);
  const result = await call({ pattern: "^x+$", regex: true, context_lines: 0 }, long);
  assert.equal(result.error, null);
  assert.equal(
    result.output,
    [
      "1 matching line in 1 document for regex /^x+$/i:",
      "long:2: xxx",
      "Note: 1 line in 1 document is longer than 2000 characters; only the first 2000 characters " +
      "of it were searched, and $ does not match at the cut.",
    ].join("\n"),
  );
  const miss = await call({ pattern: "END", context_lines: 0 }, long);
  assert.equal(
    miss.output,
    'No line in 1 document matches the word "END". Every word must be on the same line: try ' +
      "fewer or shorter words, or regex: true. Note: 1 line in 1 document is longer than 2000 " +
      "characters; only the first 2000 characters of it were searched.",
  );
});

Deno.test("corpus_grep: a matching line that was cut says so in output and data", async () => {
  const long = corpusOf([{ id: "long", text: "needle " + "y".repeat(2500) + "\nshort needle" }]);
  const result = await call({ pattern: "needle", context_lines: 0 }, long);
  const lines = result.output.split("\n");
  assert.match(lines[1], /^long:1: needle y+… \[searched the first 2000 of 2507 characters\]$/);
  assert.equal(lines[2], "long:2: short needle");
  const results = (result.data as { results: Array<Record<string, unknown>> }).results;
  assert.equal(results[0].cut, true);
  assert.equal(results[0].line_chars, 2507);
  assert.deepEqual(results[1], { doc_id: "long", line: 2, text: "short needle" });
});

Deno.test("corpus_grep: prepare builds the UTF-8 form the scans read, so the first call does not", async () => {
  const fresh = corpusOf([{ id: "a", text: "alpha beta\ngamma" }]);
  await tool.prepare!(fresh);
  assert.notEqual(lineStore(fresh).forms.utf8, undefined);
});

Deno.test("corpus_grep: a regex stopped by its time budget before any match says so, not 'no line matches'", async () => {
  // \pN (a number) follows the letters in the pattern and never in the text, so nothing
  // matches; the line prefilter reads \p{..} as any character, so it lets every line through,
  // and RE2 spends about 2 s on each 2,000-letter line.
  const random = createRng(11);
  const letters = (n: number) =>
    Array.from({ length: n }, () => "abcdefghijk"[Math.floor(random() * 11)]).join("");
  const slow = corpusOf(
    Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, text: letters(2000) })),
  );
  // Searched in one call, the 40 lines took ~45 s: the engine calls are sized by time too.
  const result = await withinCpuAsync(
    REGEX_TIME_BUDGET_MS + 20_000,
    () => call({ pattern: String.raw`(?:[a-k]{1,40}){1,25}\pN`, regex: true }, slow),
  );
  assert.equal(result.error, null);
  const data = result.data as { results: unknown[]; stopped_at: { doc_id: string; line: number } };
  assert.deepEqual(data.results, []);
  assert.equal(data.stopped_at.line, 1);
  assert.match(
    result.output,
    new RegExp(
      String.raw`^No line in 40 documents matches regex /\(\?:\[a-k\]\{1,40\}\)\{1,25\}\\pN/i ` +
        String.raw`before the search stopped\. Note: the search stopped after ` +
        `${REGEX_TIME_BUDGET_MS / 1000} s of regex matching, at ${data.stopped_at.doc_id}:1; ` +
        "that line and the rest of 40 documents were not searched\\.",
    ),
  );
});

Deno.test("corpus_grep: a long plain word on text built to make indexOf quadratic is found in linear time", async () => {
  // Before each "b" of the second line stands, across the line break, most of a run of a's:
  // an indexOf-and-check search compared up to 999 characters at each of them (~5 s here).
  const documents = Array.from({ length: 4000 }, (_, i) => ({
    id: `d${i}`,
    text: `${"a".repeat(1999)}\n${"ab".repeat(999)}`,
  }));
  documents.push({ id: "hit", text: `x ${"a".repeat(999)}b y` });
  const hostile = corpusOf(documents);
  await tool.prepare!(hostile);
  const result = await withinCpuAsync(
    2000,
    () => call({ pattern: `${"a".repeat(999)}b` }, hostile),
  );
  assert.equal(result.error, null);
  assert.deepEqual(
    (result.data as { results: Array<{ doc_id: string }> }).results.map((r) => r.doc_id),
    ["hit"],
  );
});
