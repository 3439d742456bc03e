import assert from "node:assert/strict";
import { z } from "zod";
import { retrieverSchema } from "../../../lib/config/retriever_schema.ts";
import { defineRetrieverKind, type RetrieverKind } from "../../../lib/retrieval/kinds/kind.ts";
import { RETRIEVER_KINDS } from "../../../lib/retrieval/kinds/registry.ts";
import { RunRetrievers } from "../../../lib/retrieval/registry.ts";
import type { Retriever } from "../../../lib/retrieval/types.ts";
import { corpusOf } from "../../support/tool_context.ts";

const signal = new AbortController().signal;
const corpus = corpusOf([{ id: "a", text: "apple banana" }, { id: "b", text: "cherry" }]);

/** A kind as the next engineer would add one (`http`, say): its own section, every facet. */
const echoKind = defineRetrieverKind({
  kind: "echo",
  sections: { echo: z.strictObject({ url: z.string() }) },
  keys: {},
  chunked: () => true,
  wraps: false,
  persisted: (config) => config,
  settings: ({ kind, echo }) => ({ kind, echo }),
  embeddings: () => [],
  needs: ({ echo }) => [{ name: "net", value: new URL(echo.url).host, why: "the echo server" }],
  build: (request): Promise<Retriever> =>
    Promise.resolve({
      name: request.name,
      kind: "echo",
      topK: 1,
      passages: request.passages,
      search: () => Promise.resolve({ hits: [], embedding_tokens: 0, cost_usd: 0 }),
    }),
  indexing: () => null,
});

Deno.test("a new kind's builds are shared by its own settings only, never by another kind's", async () => {
  const kinds = new Map<string, RetrieverKind>([
    ...RETRIEVER_KINDS,
    [echoKind.kind, echoKind as unknown as RetrieverKind],
  ]);
  const retrievers = new RunRetrievers(corpus, { kinds });
  const base = retrieverSchema.parse({});
  const request = (key: string, url: string) => ({
    key,
    name: key,
    config: { ...base, kind: "echo", echo: { url } },
  });
  await retrievers.get(request("a", "http://one.test/search"), signal);
  await retrievers.get(request("b", "http://two.test/search"), signal);
  // Before kinds said their settings, any kind but bm25 and vector got the hybrid's (chunk, bm25,
  // embedding, fusion): these two, configured differently, would have shared one build.
  assert.equal(retrievers.builds, 2);
  await retrievers.get(request("c", "http://one.test/search"), signal);
  assert.equal(retrievers.builds, 2, "equal settings share the build");
  assert.deepEqual(
    echoKind.needs({ ...base, echo: { url: "http://one.test/x" } }, { mock: true }),
    [
      { name: "net", value: "one.test", why: "the echo server" },
    ],
  );
  await retrievers.close();
});

Deno.test("the retriever schema is composed from the kinds: their names, then every kind's sections", () => {
  assert.deepEqual([...RETRIEVER_KINDS.keys()], [
    "bm25",
    "vector",
    "hybrid",
    "rerank",
    "http",
    "postgres",
    "opensearch",
    "elasticsearch",
  ]);
  const parsed = retrieverSchema.parse({});
  assert.deepEqual(Object.keys(parsed), ["kind", "top_k", "chunk", "bm25", "embedding", "fusion"]);
  assert.equal(parsed.kind, "bm25");
  const wrong = retrieverSchema.safeParse({ kind: "vectr" });
  assert.equal(wrong.success, false);
  // A kind's sections are every kind's: switching kind keeps the entry valid.
  assert.equal(retrieverSchema.safeParse({ kind: "bm25", fusion: { k: 10 } }).success, true);
});

Deno.test("each kind says which embeddings it calls and what building it cost", () => {
  const config = retrieverSchema.parse({ embedding: { model: "m" } });
  const embeddings = (kind: string) =>
    RETRIEVER_KINDS.get(kind)!.embeddings({ ...config, kind }).map((e) => e.model);
  assert.deepEqual(embeddings("bm25"), []);
  assert.deepEqual(embeddings("vector"), ["m"]);
  assert.deepEqual(embeddings("hybrid"), ["m"]);
});

Deno.test("a kind that forgets a facet does not compile (checked by deno check)", () => {
  // @ts-expect-error: `indexing` is missing.
  defineRetrieverKind({
    kind: "incomplete",
    sections: {},
    settings: ({ kind }) => ({ kind }),
    embeddings: () => [],
    needs: () => [],
    build: () => Promise.reject(new Error("never built")),
  });
});
