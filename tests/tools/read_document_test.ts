import assert from "node:assert/strict";
import { readDocument } from "../../tools/read_document.ts";
import { invokeTool, type RawToolResult } from "../../tools/invoke.ts";
import type { ToolDef } from "../../tools/define_tool.ts";
import type { Corpus } from "../../lib/types.ts";
import { closestMatch } from "../../lib/util/did_you_mean.ts";
import { prng } from "../../scripts/synthetic_corpus.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";

const tool = readDocument as unknown as ToolDef;

const digits = "0123456789".repeat(500);
const corpus = corpusOf([
  { id: "alpha", title: "Alpha", text: digits },
  { id: "emoji", title: "Emoji", text: "ab\u{1F600}cd" },
  { id: "empty", title: "Empty", text: "" },
  { id: "Beta-Doc", title: "Beta", text: "beta text" },
  { id: "gamma", title: "The Gamma Report", text: "gamma text" },
]);

function call(args: unknown, over: Corpus = corpus): Promise<RawToolResult> {
  return invokeTool(tool, args, contextFor(over));
}

const successes: Array<{ name: string; args: unknown; output: string; data?: unknown }> = [
  {
    name: "reads the first 2000 characters by default and says where to continue",
    args: { doc_id: "alpha" },
    output: `Document "alpha" (Alpha), characters 0-2000 of 5000:\n${digits.slice(0, 2000)}\n` +
      "[3000 more characters: call read_document with start=2000 to continue.]",
    data: { results: [{ doc_id: "alpha", start: 0, end: 2000, length: 5000 }] },
  },
  {
    name: "reads a window from start for length characters",
    args: { doc_id: "alpha", start: 2000, length: 15 },
    output: `Document "alpha" (Alpha), characters 2000-2015 of 5000:\n012345678901234\n` +
      "[2985 more characters: call read_document with start=2015 to continue.]",
    data: { results: [{ doc_id: "alpha", start: 2000, end: 2015, length: 5000 }] },
  },
  {
    name: "a window past the end stops at the end and says so",
    args: { doc_id: "alpha", start: 4990, length: 8000 },
    output: `Document "alpha" (Alpha), characters 4990-5000 of 5000:\n0123456789\n` +
      "[End of document.]",
    data: { results: [{ doc_id: "alpha", start: 4990, end: 5000, length: 5000 }] },
  },
  {
    name: "the last character can be read on its own",
    args: { doc_id: "alpha", start: 4999, length: 1 },
    output: `Document "alpha" (Alpha), characters 4999-5000 of 5000:\n9\n[End of document.]`,
  },
  {
    name: "a window does not end inside a surrogate pair",
    args: { doc_id: "emoji", length: 3 },
    output: `Document "emoji" (Emoji), characters 0-2 of 6:\nab\n` +
      "[4 more characters: call read_document with start=2 to continue.]",
    data: { results: [{ doc_id: "emoji", start: 0, end: 2, length: 6 }] },
  },
  {
    name: "the next window starts on the whole pair",
    args: { doc_id: "emoji", start: 2, length: 2 },
    output: `Document "emoji" (Emoji), characters 2-4 of 6:\n\u{1F600}\n` +
      "[2 more characters: call read_document with start=4 to continue.]",
  },
  {
    name: "a one-unit window on a high surrogate still returns that unit",
    args: { doc_id: "emoji", start: 2, length: 1 },
    output: `Document "emoji" (Emoji), characters 2-3 of 6:\n\u{D83D}\n` +
      "[3 more characters: call read_document with start=3 to continue.]",
  },
  {
    name: "an empty document reads as empty",
    args: { doc_id: "empty" },
    output: 'Document "empty" (Empty) is empty (0 characters).',
    data: { results: [{ doc_id: "empty", start: 0, end: 0, length: 0 }] },
  },
  {
    name: "an id differing only in case finds the single document",
    args: { doc_id: "beta-doc" },
    output: `Document "Beta-Doc" (Beta), characters 0-9 of 9:\nbeta text\n[End of document.]`,
    data: { results: [{ doc_id: "Beta-Doc", start: 0, end: 9, length: 9 }] },
  },
  {
    name: "surrounding spaces around the id are ignored",
    args: { doc_id: "  gamma\n" },
    output: `Document "gamma" (The Gamma Report), characters 0-10 of 10:\ngamma text\n` +
      "[End of document.]",
  },
];

for (const c of successes) {
  Deno.test(`read_document: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.equal(result.error, null);
    assert.equal(result.output, c.output);
    if (c.data !== undefined) assert.deepEqual(result.data, c.data);
  });
}

const manyDocs = corpusOf(
  Array.from({ length: 30 }, (_, i) => ({ id: `doc${i}`, title: `Doc ${i}`, text: "t" })),
);

const failures: Array<
  { name: string; args: unknown; corpus?: Corpus; kind: string; message: string }
> = [
  {
    name: "a start at the end names the document's length",
    args: { doc_id: "alpha", start: 5000 },
    kind: "invalid_args",
    message: 'start 5000 is past the end of document "alpha", which has 5000 characters: use a ' +
      "start from 0 to 4999.",
  },
  {
    name: "a start far past the end is refused",
    args: { doc_id: "emoji", start: 99 },
    kind: "invalid_args",
    message: 'start 99 is past the end of document "emoji", which has 6 characters: use a ' +
      "start from 0 to 5.",
  },
  {
    name: "a misspelt id suggests the closest id",
    args: { doc_id: "alpah" },
    kind: "not_found",
    message: 'No document has the id "alpah" — did you mean "alpha"?',
  },
  {
    name: "a title given as the id suggests that document's id",
    args: { doc_id: "the gamma report" },
    kind: "not_found",
    message: 'No document has the id "the gamma report" — did you mean "gamma"?',
  },
  {
    name: "an unknown id in a small collection lists the ids",
    args: { doc_id: "zeppelin" },
    kind: "not_found",
    message: 'No document has the id "zeppelin". Known ids: "alpha", "emoji", "empty", ' +
      '"Beta-Doc", "gamma".',
  },
  {
    name: "an unknown id in a large collection points to list_documents",
    args: { doc_id: "zeppelin" },
    corpus: manyDocs,
    kind: "not_found",
    message: 'No document has the id "zeppelin". Use list_documents (its contains argument ' +
      "filters by id or title) to find the id.",
  },
  {
    name: "an id matching two documents by case alone is not guessed",
    args: { doc_id: "DUP" },
    corpus: corpusOf([{ id: "Dup", text: "a" }, { id: "dup", text: "b" }]),
    kind: "not_found",
    message: 'No document has the id "DUP" — did you mean "Dup"?',
  },
  {
    name: "a long unknown id is clipped in the message",
    args: { doc_id: "q".repeat(300) },
    corpus: manyDocs,
    kind: "not_found",
    message: `No document has the id "${"q".repeat(100)}…". Use list_documents (its contains ` +
      "argument filters by id or title) to find the id.",
  },
  {
    name: "an empty collection says it has no documents",
    args: { doc_id: "alpha" },
    corpus: corpusOf([]),
    kind: "not_found",
    message: 'No document "alpha": the collection has no documents.',
  },
  {
    name: "a missing doc_id is reported by name",
    args: { start: 10 },
    kind: "invalid_args",
    message: 'Invalid arguments for read_document: missing required argument "doc_id".',
  },
  {
    name: "an empty doc_id is refused",
    args: { doc_id: "" },
    kind: "invalid_args",
    message: 'Invalid arguments for read_document: "doc_id": Too small: expected string to have ' +
      ">=1 characters.",
  },
  {
    name: "a doc_id given as a number is refused",
    args: { doc_id: 101 },
    kind: "invalid_args",
    message: 'Invalid arguments for read_document: "doc_id": Invalid input: expected string, ' +
      "received number.",
  },
  {
    name: "a length over 8000 is refused by the schema",
    args: { doc_id: "alpha", length: 8001 },
    kind: "invalid_args",
    message: 'Invalid arguments for read_document: "length": Too big: expected number to be ' +
      "<=8000.",
  },
  {
    name: "a length of 0 is refused",
    args: { doc_id: "alpha", length: 0 },
    kind: "invalid_args",
    message: 'Invalid arguments for read_document: "length": Too small: expected number to be ' +
      ">=1.",
  },
  {
    name: "a negative start is refused",
    args: { doc_id: "alpha", start: -5 },
    kind: "invalid_args",
    message: 'Invalid arguments for read_document: "start": Too small: expected number to be ' +
      ">=0.",
  },
  {
    name: "a fractional start is refused",
    args: { doc_id: "alpha", start: 2.5 },
    kind: "invalid_args",
    message: 'Invalid arguments for read_document: "start": Invalid input: expected int, ' +
      "received number.",
  },
];

for (const c of failures) {
  Deno.test(`read_document: ${c.name}`, async () => {
    const result = await call(c.args, c.corpus);
    assert.deepEqual(result.error, { kind: c.kind, message: c.message });
    assert.equal(result.output, "");
  });
}

Deno.test("read_document: reading window after window covers the text exactly once", async () => {
  const text = "The quick brown \u{1F98A} jumps over the lazy \u{1F436}. ".repeat(40);
  const over = corpusOf([{ id: "fox", text }]);
  let start = 0;
  let read = "";
  for (let calls = 0; calls < 100; calls++) {
    const result = await call({ doc_id: "fox", start, length: 37 }, over);
    assert.equal(result.error, null);
    const window = (result.data as { results: Array<{ start: number; end: number }> }).results[0];
    read += text.slice(window.start, window.end);
    if (window.end === text.length) break;
    assert.match(result.output, new RegExp(`start=${window.end} to continue`));
    start = window.end;
  }
  assert.equal(read, text);
});

Deno.test("read_document: the id suggestion agrees with closestMatch", async () => {
  const random = prng(11);
  const letters = "abcdefghij-0123";
  const word = (n: number): string =>
    Array.from({ length: n }, () => letters[Math.floor(random() * letters.length)]).join("");
  const ids = [...new Set(Array.from({ length: 300 }, () => word(3 + Math.floor(random() * 8))))];
  const over = corpusOf(ids.map((id) => ({ id, title: `title of ${id}`, text: "t" })));
  let suggested = 0;
  for (let q = 0; q < 200; q++) {
    const base = ids[Math.floor(random() * ids.length)];
    const chars = [...base];
    const edits = 1 + Math.floor(random() * 3);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(random() * chars.length);
      const letter = letters[Math.floor(random() * letters.length)];
      const kind = Math.floor(random() * 4);
      if (kind === 0) chars[at] = letter;
      else if (kind === 1) chars.splice(at, 0, letter.toUpperCase());
      else if (kind === 2 && chars.length > 1) chars.splice(at, 1);
      else if (at + 1 < chars.length) [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]];
    }
    const query = chars.join("");
    if (ids.includes(query)) continue;
    const result = await call({ doc_id: query }, over);
    const expected = closestMatch(query, ids);
    const message = result.error?.message ?? "";
    if (expected === undefined) {
      assert.ok(!message.includes("did you mean"), `${query}: ${message}`);
    } else {
      suggested++;
      assert.ok(message.endsWith(`did you mean "${expected}"?`), `${query}: ${message}`);
    }
  }
  assert.ok(suggested > 50, `only ${suggested} queries had a suggestion`);
});

Deno.test("read_document: in a large corpus a miss still finds the near id or title, and past 100,000 documents only the title", async () => {
  const docs = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const id = `d${String(i).padStart(6, "0")}/doc`;
      return { id, title: i === 4217 ? "Harbor Report" : `Document ${i}`, text: "t" };
    });
  const large = corpusOf(docs(100_000));
  // Many misses against the same corpus: its case-folded index is made once.
  for (let i = 0; i < 20; i++) {
    assert.match(
      (await call({ doc_id: "d004217/dco" }, large)).error?.message ?? "",
      /did you mean "d004217\/doc"\?$/,
    );
  }
  assert.match(
    (await call({ doc_id: "harbor report" }, large)).error?.message ?? "",
    /did you mean "d004217\/doc"\?$/,
  );
  assert.equal((await call({ doc_id: "D004217/DOC" }, large)).error, null, "case-folded id");
  const larger = corpusOf(docs(100_001));
  assert.match(
    (await call({ doc_id: "d004217/dco" }, larger)).error?.message ?? "",
    /Use list_documents \(its contains argument filters by id or title\) to find the id\.$/,
  );
  assert.match(
    (await call({ doc_id: "Harbor Report" }, larger)).error?.message ?? "",
    /did you mean "d004217\/doc"\?$/,
  );
});

Deno.test("read_document: every parameter has a description", () => {
  for (const [name, field] of Object.entries(readDocument.parameters.shape)) {
    assert.ok(field.description && field.description.length > 10, `${name} lacks a description`);
  }
  assert.equal(readDocument.sideEffects, "none");
  assert.equal(readDocument.options, undefined);
});

Deno.test("read_document names the pages of a PDF window and where each later page starts", async () => {
  const pages = corpusOf([{ id: "manual", text: "Page one.\n\nPage two.\n\nPage three." }]);
  pages.documents[0].pages = [0, 11, 22];
  const first = await call({ doc_id: "manual", length: 5 }, pages);
  assert.match(first.output, /^Document "manual" \(manual\), characters 0-5 of 33, page 1:\nPage /);
  const span = await call({ doc_id: "manual", start: 5 }, pages);
  assert.match(
    span.output,
    /^Document "manual" \(manual\), characters 5-33 of 33, pages 1-3 \(page 2 starts at character 11, 3 at 22\):\n/,
  );
  const last = await call({ doc_id: "manual", start: 22 }, pages);
  assert.match(last.output, /^Document "manual" \(manual\), characters 22-33 of 33, page 3:\n/);
});
