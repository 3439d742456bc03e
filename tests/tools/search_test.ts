import assert from "node:assert/strict";
import { MAX_QUERY_CHARS, MAX_TOP_K, roundScore, search } from "../../tools/search.ts";
import { invokeTool, type RawToolResult } from "../../tools/invoke.ts";
import { parametersJsonSchema, type ToolDef } from "../../tools/define_tool.ts";
import type { Corpus } from "../../lib/types.ts";
import { contextFor, corpusOf } from "../support/tool_context.ts";

const tool = search as unknown as ToolDef;

const corpus = corpusOf([
  {
    id: "eiffel",
    title: "Eiffel Tower",
    text: "The Eiffel Tower in Paris is 330 metres tall.\nIt was completed in 1889.",
  },
  {
    id: "tokyo",
    title: "Tokyo Tower",
    text: "Tokyo Tower, inspired by the Eiffel Tower, is 333 m tall.",
  },
  { id: "burj", title: "Burj Khalifa", text: "The Burj Khalifa in Dubai is 828 m tall." },
  {
    id: "empire",
    title: "Empire State Building",
    text: "The Empire State Building\n\n  has 102 floors.",
  },
]);

function call(args: unknown, over: Corpus = corpus): Promise<RawToolResult> {
  return invokeTool(tool, args, contextFor(over));
}

Deno.test("search is declared as the seed describes it", () => {
  assert.equal(search.name, "search");
  assert.equal(
    search.description,
    "Search the document collection and return the best matching passages with their document ids. Cite those ids in the answer.",
  );
  assert.equal(search.sideEffects, "none");
  const schema = parametersJsonSchema(tool);
  assert.deepEqual(schema.required, ["query"]);
  assert.equal(schema.additionalProperties, false);
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  assert.equal(properties.query.type, "string");
  assert.equal(properties.query.minLength, 1);
  assert.equal(properties.query.maxLength, MAX_QUERY_CHARS);
  assert.deepEqual(
    [properties.top_k.type, properties.top_k.default, properties.top_k.minimum],
    ["integer", 5, 1],
  );
  assert.equal(properties.top_k.maximum, MAX_TOP_K);
  for (const p of Object.values(properties)) assert.equal(typeof p.description, "string");
});

Deno.test("search lists passages best first with rank, doc_id, passage id, score and text", async () => {
  const result = await call({ query: "How tall is the Eiffel Tower?" });
  assert.equal(result.error, null);
  // Scores with single letters dropped (the "m" of "333 m" is no term: tokyo and burj are shorter
  // and the mean length lower than when it was indexed).
  assert.equal(
    result.output,
    [
      "[1] doc_id: eiffel | passage: eiffel#0 | score: 2.205",
      "The Eiffel Tower in Paris is 330 metres tall.",
      "It was completed in 1889.",
      "",
      "[2] doc_id: tokyo | passage: tokyo#0 | score: 2.161",
      "Tokyo Tower, inspired by the Eiffel Tower, is 333 m tall.",
      "",
      "[3] doc_id: burj | passage: burj#0 | score: 0.387",
      "The Burj Khalifa in Dubai is 828 m tall.",
    ].join("\n"),
  );
  assert.deepEqual(result.data, {
    results: [
      {
        doc_id: "eiffel",
        passage_id: "eiffel#0",
        score: 2.205,
        text: "The Eiffel Tower in Paris is 330 metres tall.\nIt was completed in 1889.",
      },
      {
        doc_id: "tokyo",
        passage_id: "tokyo#0",
        score: 2.161,
        text: "Tokyo Tower, inspired by the Eiffel Tower, is 333 m tall.",
      },
      {
        doc_id: "burj",
        passage_id: "burj#0",
        score: 0.387,
        text: "The Burj Khalifa in Dubai is 828 m tall.",
      },
    ],
  });
});

Deno.test("search keeps a passage's lines, drops repeated blank space, keeps the text as is in data", async () => {
  const result = await call({ query: "floors" });
  assert.equal(
    result.output,
    "[1] doc_id: empire | passage: empire#0 | score: 1.237\nThe Empire State Building\n\n  has 102 floors.",
  );
  const data = result.data as { results: Array<{ text: string }> };
  assert.equal(data.results[0].text, "The Empire State Building\n\n  has 102 floors.");
});

Deno.test("search returns the same output for the same query twice", async () => {
  assert.deepEqual(await call({ query: "tower tall" }), await call({ query: "tower tall" }));
});

Deno.test("search finds numbers such as years", async () => {
  const result = await call({ query: "1889" });
  assert.deepEqual(
    (result.data as { results: Array<{ doc_id: string }> }).results.map((r) => r.doc_id),
    ["eiffel"],
  );
});

const many = corpusOf(
  Array.from({ length: 8 }, (_, i) => ({ id: `d${i}`, text: `tower number ${i}` })),
);

Deno.test("search returns 5 passages by default and top_k when given", async () => {
  const count = async (args: unknown) =>
    ((await call(args, many)).data as { results: unknown[] }).results.length;
  assert.equal(await count({ query: "tower" }), 5);
  assert.equal(await count({ query: "tower", top_k: 1 }), 1);
  assert.equal(await count({ query: "tower", top_k: MAX_TOP_K }), 8);
});

Deno.test("search says plainly when nothing matched (not an error)", async () => {
  const result = await call({ query: "zebra giraffe" });
  assert.equal(result.error, null);
  assert.equal(
    result.output,
    'No passage matched "zebra giraffe". Try other words, synonyms or fewer terms.',
  );
  assert.deepEqual(result.data, { results: [] });
});

Deno.test("search on an empty corpus matches nothing", async () => {
  const result = await call({ query: "tower" }, corpusOf([]));
  assert.equal(result.error, null);
  assert.deepEqual(result.data, { results: [] });
});

const invalid: Array<{ name: string; args: unknown; message: string }> = [
  {
    name: "a query of stopwords only",
    args: { query: "What is the of it?" },
    message: 'The query "What is the of it?" has no searchable words: it is only common words ' +
      '(such as "the", "of", "what"), single letters or punctuation. Search again with content ' +
      "words: names, places, things, numbers.",
  },
  {
    name: "a query of punctuation only",
    args: { query: "?!" },
    message: 'The query "?!" has no searchable words: it is only common words ' +
      '(such as "the", "of", "what"), single letters or punctuation. Search again with content ' +
      "words: names, places, things, numbers.",
  },
  {
    name: "a query of single letters only (single_letters: drop)",
    args: { query: "X, Y or I?" },
    message: 'The query "X, Y or I?" has no searchable words: it is only common words ' +
      '(such as "the", "of", "what"), single letters or punctuation. Search again with content ' +
      "words: names, places, things, numbers.",
  },
  {
    name: "a missing query",
    args: {},
    message: 'Invalid arguments for search: missing required argument "query".',
  },
  {
    name: "a query that is not a string",
    args: { query: 42 },
    message:
      'Invalid arguments for search: "query": Invalid input: expected string, received number.',
  },
  {
    name: "an empty query",
    args: { query: "" },
    message: 'Invalid arguments for search: "query": must not be empty.',
  },
  {
    name: "an overlong query",
    args: { query: "x".repeat(MAX_QUERY_CHARS + 1) },
    message: 'Invalid arguments for search: "query": must be at most 1000 characters.',
  },
  {
    name: "top_k below 1",
    args: { query: "tower", top_k: 0 },
    message: 'Invalid arguments for search: "top_k": Too small: expected number to be >=1.',
  },
  {
    name: "top_k above 50",
    args: { query: "tower", top_k: 51 },
    message: 'Invalid arguments for search: "top_k": Too big: expected number to be <=50.',
  },
  {
    name: "a fractional top_k",
    args: { query: "tower", top_k: 2.5 },
    message: 'Invalid arguments for search: "top_k": Invalid input: expected int, received number.',
  },
  {
    name: "top_k as a string",
    args: { query: "tower", top_k: "3" },
    message:
      'Invalid arguments for search: "top_k": Invalid input: expected number, received string.',
  },
  {
    name: "an unknown argument",
    args: { query: "tower", k: 3 },
    message: 'Invalid arguments for search: unknown argument "k" (expected: query, top_k).',
  },
];

for (const c of invalid) {
  Deno.test(`search rejects ${c.name} with invalid_args`, async () => {
    const result = await call(c.args);
    assert.equal(result.output, "");
    assert.deepEqual(result.error, { kind: "invalid_args", message: c.message });
  });
}

Deno.test("roundScore keeps three decimals", () => {
  assert.equal(roundScore(2.18951), 2.19);
  assert.equal(roundScore(0.37449), 0.374);
  assert.equal(roundScore(7), 7);
});
