import assert from "node:assert/strict";
import { ownRetriever, retrieverSchema } from "../../lib/config/retriever_schema.ts";
import { toolRulesSchema } from "../../lib/config/schema.ts";
import { retrieverFor } from "../../lib/retrieval/retriever.ts";
import { retrievalScores } from "../../lib/score/retrieval.ts";
import type { Corpus, JsonValue, Step, ToolResult } from "../../lib/types.ts";
import { createRng } from "../../lib/util/prng.ts";
import { corpusGrep } from "../../tools/corpus_grep.ts";
import type { ToolDef } from "../../tools/define_tool.ts";
import { createInProcessHost } from "../../tools/host.ts";
import { createRetrievalHost } from "../../tools/retrieval_host.ts";
import { search } from "../../tools/search.ts";
import { createToolbox } from "../../tools/toolbox.ts";
import { markdownPages, pageQueries } from "../../scripts/markdown_pages.ts";
import { corpusOf } from "../support/tool_context.ts";

const signal = new AbortController().signal;

/** A session offering `search` over the corpus's default retriever, cut at `limit` characters. */
function searchSession(corpus: Corpus, limit: number) {
  const host = createRetrievalHost(retrieverFor(corpus), { corpus, now: "2026-01-01" });
  return createToolbox([{
    name: "search",
    description: search.description,
    sideEffects: "none",
    parameters: {},
    options: {},
    timeoutMs: 10_000,
    host,
  }], { max_output_chars: limit }).session("q");
}

/** Five documents of one passage each, about 600 characters, all matching "harbor". */
const corpus = corpusOf(
  ["alpha", "bravo", "charlie", "delta", "echo"].map((id, i) => ({
    id,
    text: `The harbor ${"harbor ".repeat(5 - i)}${id} ` + `${id} record of the port. `.repeat(24),
  })),
);

function resultsOf(result: ToolResult, key: "results" | "not_shown"): string[] {
  const data = result.data as Record<string, JsonValue>;
  return (data[key] as Array<Record<string, JsonValue>> ?? []).map((r) => String(r.doc_id));
}

Deno.test("a search over max_output_chars is cut between passages, never inside one", async () => {
  const { result } = await searchSession(corpus, 2000).execute(
    "search",
    '{"query": "harbor", "top_k": 5}',
    signal,
  );
  assert.equal(result.truncated, true);
  const shown = resultsOf(result, "results");
  const hidden = resultsOf(result, "not_shown");
  assert.ok(shown.length >= 1 && shown.length < 5, `${shown.length} shown`);
  assert.equal(shown.length + hidden.length, 5);
  assert.match(
    result.output,
    new RegExp(`\\n\\n\\[output cut at 2000 characters: ${shown.length} of 5 results shown\\]$`),
  );
  // Each shown passage is there whole; no passage left out appears at all.
  const data = result.data as { results: Array<{ doc_id: string; text: string }> };
  for (const [i, r] of data.results.entries()) {
    assert.ok(result.output.includes(`[${i + 1}] doc_id: ${r.doc_id} |`));
    assert.ok(result.output.includes(r.text.replace(/\s+/g, " ").trim()), r.doc_id);
  }
  for (const id of hidden) assert.ok(!result.output.includes(`doc_id: ${id} |`), id);
});

Deno.test("retrieval metrics credit an agent only with the passages its search showed it", async () => {
  const { args, result } = await searchSession(corpus, 2000).execute(
    "search",
    '{"query": "harbor", "top_k": 5}',
    signal,
  );
  const hidden = resultsOf(result, "not_shown");
  assert.ok(hidden.length > 0);
  const steps: Step[] = [{ type: "tool", tool: "search", call_id: "c1", args, result }];
  // The evidence is a passage the retriever ranked but the model never read.
  const scores = retrievalScores(steps, [{ id: hidden[0], grade: 1 }], [1, 5, 10]);
  assert.equal(scores.recall, 0);
  assert.equal(scores.metrics?.["recall@10"], 0);
  assert.ok(!scores.ranking.includes(hidden[0]));
  const seen = retrievalScores(steps, [{ id: resultsOf(result, "results")[0], grade: 1 }]);
  assert.equal(seen.recall, 1);
});

Deno.test("a corpus_grep over max_output_chars is cut after a matching line; the lines left out are not credited", async () => {
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i} mentions the harbor crane`);
  const grepCorpus = corpusOf([
    { id: "first", text: lines.slice(0, 15).join("\n") },
    { id: "second", text: lines.slice(15).join("\n") },
  ]);
  const host = createInProcessHost([corpusGrep as unknown as ToolDef], {
    corpus: grepCorpus,
    now: "2026-01-01",
  });
  const session = createToolbox([{
    name: "corpus_grep",
    description: corpusGrep.description,
    sideEffects: "none",
    parameters: {},
    options: { max_results: 50 },
    timeoutMs: 10_000,
    host,
  }], { max_output_chars: 600 }).session("q");
  const { result } = await session.execute(
    "corpus_grep",
    '{"pattern": "harbor crane", "max_results": 30, "context_lines": 0}',
    signal,
  );
  assert.equal(result.truncated, true);
  const shown = (result.data as { results: Array<{ doc_id: string; line: number }> }).results;
  const kept = result.output.split("\n\n[output cut")[0].split("\n");
  // The header, then exactly the shown matching lines, each whole.
  assert.equal(kept.length, shown.length + 1);
  shown.forEach((r, i) => assert.equal(kept[i + 1], `${r.doc_id}:${r.line}: ${lines[i]}`));
  assert.ok(shown.every((r) => r.doc_id === "first"));
  assert.ok(resultsOf(result, "not_shown").includes("second"));
  assert.match(result.output, /\[output cut at 600 characters: \d+ of 30 results shown\]$/);
});

Deno.test("the default search call is not cut on this repository's Markdown pages", async () => {
  // README.md and docs/ cut into pages of a few thousand characters at their `## ` headings:
  // ordinary Markdown. Every default is used: chunking, top_k and tools.max_output_chars.
  const documents = await markdownPages(["README.md", "docs"]);
  assert.ok(documents.length >= 10, `${documents.length} pages`);
  const corpus = { documents, tables: [] };
  const defaults = ownRetriever(retrieverSchema.parse({}));
  assert.deepEqual(defaults.chunk, { size: 200, overlap: 0, unit: "words" });
  const session = searchSession(corpus, toolRulesSchema.parse({}).max_output_chars);
  const queries = pageQueries(documents, createRng(18));
  let cut = 0;
  let full = 0;
  for (const query of queries) {
    const { result } = await session.execute("search", JSON.stringify({ query }), signal);
    if (result.error) continue;
    const data = result.data as { results: unknown[]; not_shown?: unknown[] };
    if (result.truncated || data.not_shown !== undefined) cut++;
    if (data.results.length === 5) full++;
  }
  assert.equal(cut, 0, `${cut} of ${queries.length} default search calls were cut`);
  // Nearly every call returned its 5 passages (a query of rare words can match fewer), so these
  // were full-size outputs that fit.
  assert.ok(full >= 0.9 * queries.length, `${full} of ${queries.length} calls gave 5 passages`);
});
