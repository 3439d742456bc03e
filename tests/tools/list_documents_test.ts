import assert from "node:assert/strict";
import { listDocuments } from "../../tools/list_documents.ts";
import { invokeTool, type RawToolResult } from "../../tools/invoke.ts";
import type { ToolDef } from "../../tools/define_tool.ts";
import type { Corpus } from "../../lib/types.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";

const tool = listDocuments as unknown as ToolDef;

const corpus = corpusOf([
  { id: "eiffel", title: "Eiffel Tower", text: "The Eiffel Tower is 330 m tall." },
  { id: "tokyo-tower", title: "Tokyo Tower", text: "Tokyo Tower was inspired by the Eiffel." },
  { id: "burj", title: "Burj Khalifa", text: "x".repeat(1234) },
  { id: "taipei-101", title: "Taipei 101\n(skyscraper)", text: "é" },
  { id: "empty", title: "Empty note", text: "" },
]);

function call(args: unknown, over: Corpus = corpus): Promise<RawToolResult> {
  return invokeTool(tool, args, contextFor(over));
}

const successes: Array<{ name: string; args: unknown; output: string; data?: unknown }> = [
  {
    name: "lists every document in corpus order with id, title and length",
    args: {},
    output: [
      "Documents 1-5 of 5:",
      "eiffel | Eiffel Tower | 31 chars",
      "tokyo-tower | Tokyo Tower | 39 chars",
      "burj | Burj Khalifa | 1234 chars",
      "taipei-101 | Taipei 101 (skyscraper) | 1 char",
      "empty | Empty note | 0 chars",
    ].join("\n"),
    data: {
      results: [
        { doc_id: "eiffel", title: "Eiffel Tower", chars: 31 },
        { doc_id: "tokyo-tower", title: "Tokyo Tower", chars: 39 },
        { doc_id: "burj", title: "Burj Khalifa", chars: 1234 },
        { doc_id: "taipei-101", title: "Taipei 101\n(skyscraper)", chars: 1 },
        { doc_id: "empty", title: "Empty note", chars: 0 },
      ],
      total: 5,
    },
  },
  {
    name: "contains filters by title, case-insensitively",
    args: { contains: "TOWER" },
    output: 'Documents 1-2 of 2 whose id or title contains "TOWER":\n' +
      "eiffel | Eiffel Tower | 31 chars\ntokyo-tower | Tokyo Tower | 39 chars",
    data: {
      results: [
        { doc_id: "eiffel", title: "Eiffel Tower", chars: 31 },
        { doc_id: "tokyo-tower", title: "Tokyo Tower", chars: 39 },
      ],
      total: 2,
    },
  },
  {
    name: "contains filters by id and ignores surrounding spaces",
    args: { contains: " -101 " },
    output: 'Documents 1-1 of 1 whose id or title contains "-101":\n' +
      "taipei-101 | Taipei 101 (skyscraper) | 1 char",
  },
  {
    name: "a page says how many more documents follow and the next offset",
    args: { limit: 2 },
    output: "Documents 1-2 of 5:\neiffel | Eiffel Tower | 31 chars\n" +
      "tokyo-tower | Tokyo Tower | 39 chars\n" +
      "3 more: call list_documents with offset 2 to see them.",
    data: {
      results: [
        { doc_id: "eiffel", title: "Eiffel Tower", chars: 31 },
        { doc_id: "tokyo-tower", title: "Tokyo Tower", chars: 39 },
      ],
      total: 5,
    },
  },
  {
    name: "offset skips documents",
    args: { limit: 2, offset: 2 },
    output: "Documents 3-4 of 5:\nburj | Burj Khalifa | 1234 chars\n" +
      "taipei-101 | Taipei 101 (skyscraper) | 1 char\n" +
      "1 more: call list_documents with offset 4 to see them.",
  },
  {
    name: "the last page has no more-line",
    args: { limit: 2, offset: 4 },
    output: "Documents 5-5 of 5:\nempty | Empty note | 0 chars",
    data: { results: [{ doc_id: "empty", title: "Empty note", chars: 0 }], total: 5 },
  },
  {
    name: "paging applies to the filtered list",
    args: { contains: "tower", limit: 1, offset: 1 },
    output: 'Documents 2-2 of 2 whose id or title contains "tower":\n' +
      "tokyo-tower | Tokyo Tower | 39 chars",
  },
  {
    name: "contains matching nothing is an empty result, not an error",
    args: { contains: "pyramid" },
    output: 'No document whose id or title contains "pyramid" (the collection has 5 documents).',
    data: { results: [], total: 0 },
  },
];

for (const c of successes) {
  Deno.test(`list_documents: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.equal(result.error, null);
    assert.equal(result.output, c.output);
    if (c.data !== undefined) assert.deepEqual(result.data, c.data);
  });
}

Deno.test("list_documents: an empty collection says so", async () => {
  const result = await call({}, corpusOf([]));
  assert.equal(result.error, null);
  assert.equal(result.output, "The collection has no documents.");
  assert.deepEqual(result.data, { results: [], total: 0 });
});

Deno.test("list_documents: the default limit is 50 and the rest is announced", async () => {
  const many = corpusOf(Array.from({ length: 120 }, (_, i) => ({ id: `d${i}`, text: "abc" })));
  const result = await call({}, many);
  const lines = result.output.split("\n");
  assert.equal(lines[0], "Documents 1-50 of 120:");
  assert.equal(lines.length, 52);
  assert.equal(lines[50], "d49 | d49 | 3 chars");
  assert.equal(lines[51], "70 more: call list_documents with offset 50 to see them.");
  assert.equal((result.data as { total: number }).total, 120);
});

Deno.test("list_documents: a very long title is cut to keep one line per document", async () => {
  const result = await call({}, corpusOf([{ id: "long", title: "t".repeat(300), text: "" }]));
  assert.equal(result.output, `Documents 1-1 of 1:\nlong | ${"t".repeat(200)}… | 0 chars`);
});

const failures: Array<{ name: string; args: unknown; message: string }> = [
  {
    name: "an offset past the end names the valid range",
    args: { offset: 5 },
    message: "offset 5 is past the end: there are 5 documents. Use an offset from 0 to 4.",
  },
  {
    name: "an offset past the end of a filtered list names the filter",
    args: { contains: "burj", offset: 3 },
    message: 'offset 3 is past the end: there is 1 document whose id or title contains "burj". ' +
      "Use an offset from 0 to 0.",
  },
  {
    name: "a negative offset is refused",
    args: { offset: -1 },
    message: 'Invalid arguments for list_documents: "offset": Too small: expected number to be ' +
      ">=0.",
  },
  {
    name: "a limit of 0 is refused",
    args: { limit: 0 },
    message: 'Invalid arguments for list_documents: "limit": Too small: expected number to be ' +
      ">=1.",
  },
  {
    name: "a limit given as a string is refused",
    args: { limit: "10" },
    message: 'Invalid arguments for list_documents: "limit": Invalid input: expected number, ' +
      "received string.",
  },
  {
    name: "contains given as a number is refused",
    args: { contains: 101 },
    message: 'Invalid arguments for list_documents: "contains": Invalid input: expected string, ' +
      "received number.",
  },
  {
    name: "an unknown argument names the expected ones",
    args: { query: "tower" },
    message: 'Invalid arguments for list_documents: unknown argument "query" (expected: ' +
      "contains, limit, offset).",
  },
];

for (const c of failures) {
  Deno.test(`list_documents: ${c.name}`, async () => {
    const result = await call(c.args);
    assert.deepEqual(result.error, { kind: "invalid_args", message: c.message });
  });
}

Deno.test("list_documents: every parameter has a description", () => {
  for (const [name, field] of Object.entries(listDocuments.parameters.shape)) {
    assert.ok(field.description && field.description.length > 10, `${name} lacks a description`);
  }
  assert.equal(listDocuments.sideEffects, "none");
  assert.equal(listDocuments.options, undefined);
});
