import assert from "node:assert/strict";
import { parseOwnRetriever } from "../../../lib/config/retriever_schema.ts";
import { systemBaseSchema } from "../../../lib/config/schema.ts";
import { passagesOf } from "../../../lib/lexical/passages.ts";
import { createEmbedderPool } from "../../../lib/dense/embedders.ts";
import { buildVectorRetriever } from "../../../lib/retrieval/vector_retriever.ts";
import { RunRetrievers } from "../../../lib/retrieval/registry.ts";
import { runQuestions } from "../../../lib/run/runner.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { rag } from "../../../systems/rag.ts";
import { defineSystem, NO_FLAGS } from "../../../systems/system.ts";
import { startFakeEmbeddingsServer } from "../../support/fake_embeddings_server.ts";
import { modelOf, question, toolboxOf } from "../../support/fixtures.ts";
import { tempTree } from "../../support/temp.ts";
import { corpusOf } from "../../support/tool_context.ts";

Deno.test("an embedding endpoint failing on one question's query errors that question only", async () => {
  await using tmp = await tempTree();
  await using server = startFakeEmbeddingsServer((request) =>
    request.body.input?.[0]?.includes("broken")
      ? { status: 502, json: { error: { message: "bad gateway" } } }
      : "default"
  );
  const passages = passagesOf([
    { id: "wing", title: "Wing", text: "Lift on a swept wing.", source: "w" },
    { id: "plate", title: "Plate", text: "Flat plate boundary layers.", source: "p" },
  ]);
  using pool = createEmbedderPool({ mock: false, cacheDir: () => tmp.dir });
  const config = parseOwnRetriever({
    kind: "vector",
    embedding: { base_url: server.baseUrl, model: "m", api_key_env: null, max_retries: 0 },
  });
  const retriever = await buildVectorRetriever("dense", config, passages, {
    embedderFor: pool.embedderFor,
    signal: new AbortController().signal,
  });
  const searcher = defineSystem({
    type: "searcher",
    description: "answers with the best passage's document id",
    acceptsTools: false,
    alwaysTools: [],
    options: systemBaseSchema,
    async run(_options, ctx) {
      const outcome = await retriever.search(ctx.question.question, 1, ctx.signal);
      return { answer: outcome.hits[0].passage.doc_id, flags: NO_FLAGS };
    },
  });
  const lines: QuestionResult[] = [];
  const outcome = await runQuestions({
    systems: [{
      name: "s",
      def: searcher,
      options: { type: "searcher" },
      toolbox: toolboxOf([]),
      retriever,
      model: modelOf(() => ({ content: "unused" })),
    }],
    questions: [question("q1", "swept wing lift"), question("q2", "a broken query")],
    repeats: 1,
    concurrency: 1,
    questionTimeoutMs: 5000,
    maxCostUsd: null,
    done: new Set(),
    sink: (r) => {
      lines.push(r);
      return Promise.resolve();
    },
    reporter: { onResult() {} },
    signal: new AbortController().signal,
  });
  assert.equal(outcome.recorded, 2);
  const byId = new Map(lines.map((l) => [l.question_id, l]));
  assert.equal(byId.get("q1")?.error, null);
  assert.equal(byId.get("q1")?.answer, "wing");
  assert.equal(byId.get("q2")?.error?.kind, "model");
  assert.match(
    byId.get("q2")?.error?.message ?? "",
    new RegExp(
      `Embedding API at ${server.baseUrl} \\(model "m"\\) failed \\(HTTP 502: bad gateway\\)`,
    ),
  );
});

Deno.test("rag over a hybrid retriever: a failing query embedding is that question's retrieval error", async () => {
  await using tmp = await tempTree();
  await using server = startFakeEmbeddingsServer((request) =>
    request.body.input?.[0]?.includes("broken")
      ? { status: 503, json: { error: { message: "overloaded" } } }
      : "default"
  );
  const corpus = corpusOf([
    { id: "wing", text: "Lift on a swept wing." },
    { id: "plate", text: "Flat plate boundary layers." },
  ]);
  using embedders = createEmbedderPool({ mock: false, cacheDir: () => tmp.dir });
  const retrievers = new RunRetrievers(corpus, { embedders });
  const config = parseOwnRetriever({
    kind: "hybrid",
    top_k: 1,
    embedding: { base_url: server.baseUrl, model: "m", api_key_env: null, max_retries: 0 },
  });
  const retriever = await retrievers.get(
    { key: "h", name: "mix", config },
    new AbortController().signal,
  );
  const lines: QuestionResult[] = [];
  await runQuestions({
    systems: [{
      name: "r",
      def: rag,
      options: rag.options.parse({ type: "rag" }),
      toolbox: toolboxOf([]),
      retriever,
      model: modelOf(() => ({ content: "From [wing]." })),
    }],
    questions: [question("q1", "swept wing lift"), question("q2", "a broken query")],
    repeats: 1,
    concurrency: 1,
    questionTimeoutMs: 5000,
    maxCostUsd: null,
    done: new Set(),
    sink: (r) => {
      lines.push(r);
      return Promise.resolve();
    },
    reporter: { onResult() {} },
    signal: new AbortController().signal,
  });
  const byId = new Map(lines.map((l) => [l.question_id, l]));
  assert.equal(byId.get("q1")?.error, null);
  assert.equal(byId.get("q1")?.answer, "From [wing].");
  assert.equal(byId.get("q2")?.error?.kind, "retrieval");
  assert.match(
    byId.get("q2")?.error?.message ?? "",
    /retriever "mix" failed: Embedding API at http:\/\/127\.0\.0\.1:\d+\/v1 \(model "m"\) failed \(HTTP 503: overloaded\)/,
  );
});
