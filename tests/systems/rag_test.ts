import assert from "node:assert/strict";
import { retrieverSchema } from "../../lib/config/retriever_schema.ts";
import { groundingPassages } from "../../lib/llm/grounded_prompt.ts";
import { createMockModel } from "../../lib/llm/mock_model.ts";
import { MOCK_POLICIES } from "../../systems/registry.ts";
import { parseMockScript } from "../../lib/llm/mock_script_load.ts";
import type { ChatRequest } from "../../lib/llm/model.ts";
import { RunRetrievers } from "../../lib/retrieval/registry.ts";
import type { Retriever } from "../../lib/retrieval/types.ts";
import { RetrievalFailedError, TraceRecorder } from "../../lib/trace/trace_recorder.ts";
import type { ModelStep, RetrievalStep } from "../../lib/types.ts";
import { rag } from "../../systems/rag.ts";
import { retrievalOnly } from "../../systems/retrieval_only.ts";
import { modelOf, question, toolboxOf } from "../support/fixtures.ts";
import { corpusOf } from "../support/tool_context.ts";

const signal = new AbortController().signal;
const corpus = corpusOf([
  { id: "eiffel", text: "The Eiffel Tower in Paris is 330 metres tall." },
  { id: "tokyo", text: "Tokyo Tower, inspired by the Eiffel Tower, is 333 m tall." },
  { id: "burj", text: "The Burj Khalifa in Dubai is 828 m tall." },
]);

async function retrieverOf(top_k = 2): Promise<Retriever> {
  const config = retrieverSchema.parse({ top_k });
  return await new RunRetrievers(corpus).get({ key: "k", name: "small", config }, signal);
}

function contextOf(recorder: TraceRecorder, retriever: Retriever | null, text: string) {
  return {
    question: question("q", text),
    recorder,
    tools: toolboxOf([]).session("q"),
    retriever,
    signal,
  };
}

/** A retriever whose every search fails like an embedding endpoint that is down. */
const brokenRetriever: Retriever = {
  name: "dense",
  kind: "vector",
  topK: 3,
  passages: [],
  search: () => Promise.reject(new Error("embedding endpoint http://127.0.0.1:9/v1 is down")),
};

Deno.test("rag retrieves top_k passages, then one model call answers from them", async () => {
  const requests: ChatRequest[] = [];
  const model = modelOf((r) => {
    requests.push(r);
    return { content: "330 metres [eiffel]." };
  });
  const recorder = new TraceRecorder(model);
  const outcome = await rag.run(
    rag.options.parse({ type: "rag" }),
    contextOf(recorder, await retrieverOf(2), "How tall is the Eiffel Tower in Paris?"),
  );
  assert.equal(outcome.answer, "330 metres [eiffel].");
  assert.deepEqual(outcome.flags, {
    best_effort: false,
    budget_exhausted: false,
    format_error: false,
  });
  assert.deepEqual(recorder.steps.map((s) => s.type), ["retrieval", "model"]);
  const step = recorder.steps[0] as RetrievalStep;
  assert.equal(step.retriever, "small");
  assert.equal(step.query, "How tall is the Eiffel Tower in Paris?");
  assert.deepEqual(step.results.map((r) => [r.passage_id, r.doc_id]), [
    ["eiffel#0", "eiffel"],
    ["tokyo#0", "tokyo"],
  ]);
  assert.equal(step.error, null);
  assert.equal(step.embedding_tokens, 0);
  assert.equal(requests.length, 1);
  assert.deepEqual(requests[0].tools, []);
  assert.equal(requests[0].messages[1].content, "How tall is the Eiffel Tower in Paris?");
  assert.deepEqual(groundingPassages(requests[0].messages)?.map((p) => p.doc_id), [
    "eiffel",
    "tokyo",
  ]);
  assert.match(requests[0].messages[0].content ?? "", /cite the id of every document/);
  assert.equal((recorder.steps[1] as ModelStep).final, false);
});

Deno.test("rag under the mock model gives the scripted answer, or quotes the first passage", async () => {
  const script = parseMockScript(
    '"Eiffel Tower":\n  - {call: search, args: {query: Eiffel}}\n  - {answer: "It is 330 m [eiffel]."}\n  - {recall: "About 300 m."}\n',
    "mock.yaml",
  );
  const model = createMockModel(script, "gpt-4o-mini", { input_per_mtok: 0, output_per_mtok: 0 }, {
    policies: MOCK_POLICIES,
  });
  const retriever = await retrieverOf(2);
  const scripted = await rag.run(
    rag.options.parse({ type: "rag" }),
    contextOf(new TraceRecorder(model), retriever, "How tall is the Eiffel Tower in Paris?"),
  );
  assert.equal(scripted.answer, "It is 330 m [eiffel].");
  const unscripted = await rag.run(
    rag.options.parse({ type: "rag" }),
    contextOf(new TraceRecorder(model), retriever, "Where is the Burj Khalifa?"),
  );
  assert.equal(
    unscripted.answer,
    "From the documents: The Burj Khalifa in Dubai is 828 m tall. [burj]",
  );
  const nothing = await rag.run(
    rag.options.parse({ type: "rag" }),
    contextOf(new TraceRecorder(model), retriever, "zebra"),
  );
  assert.equal(nothing.answer, "I don't know.");
});

Deno.test("rag ends the question as a retrieval error when its retriever fails", async () => {
  const model = modelOf(() => ({ content: "never asked" }));
  const recorder = new TraceRecorder(model);
  await assert.rejects(
    rag.run(rag.options.parse({ type: "rag" }), contextOf(recorder, brokenRetriever, "q?")),
    (error: unknown) =>
      error instanceof RetrievalFailedError &&
      error.message ===
        'retriever "dense" failed: embedding endpoint http://127.0.0.1:9/v1 is down',
  );
  assert.equal(recorder.modelCalls, 0);
  const step = recorder.steps[0] as RetrievalStep;
  assert.deepEqual(step.results, []);
  assert.deepEqual(step.error, {
    kind: "retrieval",
    message: "embedding endpoint http://127.0.0.1:9/v1 is down",
  });
});

Deno.test("retrieval_only ranks the retriever's top_k and makes no model call", async () => {
  const model = modelOf(() => {
    throw new Error("no model call expected");
  });
  const recorder = new TraceRecorder(model);
  const outcome = await retrievalOnly.run(
    retrievalOnly.options.parse({ type: "retrieval_only" }),
    contextOf(recorder, await retrieverOf(3), "tall tower"),
  );
  assert.equal(outcome.answer, null);
  assert.equal(recorder.modelCalls, 0);
  assert.equal(recorder.costUsd, 0);
  const step = recorder.steps[0] as RetrievalStep;
  assert.equal(step.results.length, 3);
  for (let i = 1; i < step.results.length; i++) {
    assert.ok(step.results[i - 1].score >= step.results[i].score);
  }
});

Deno.test("retrieval_only ranks whole documents over BM25 (document_ranking: whole), passages with best_passage", async () => {
  // "long" is cut into two passages at 16 words; its two query words fall in different ones.
  const split = corpusOf([
    {
      id: "long",
      text:
        "Eiffel oak elm ash fir yew ivy fern moss reed. Tower cod eel gar bass carp pike tuna hake.",
    },
    { id: "short", text: "The Eiffel monument." },
    { id: "other", text: "Tokyo Tower stands in Tokyo." },
  ]);
  const ranked = async (bm25: Record<string, unknown>) => {
    const config = retrieverSchema.parse({ top_k: 10, chunk: { size: 16 }, bm25 });
    const retriever = await new RunRetrievers(split).get({ key: "k", name: "r", config }, signal);
    const recorder = new TraceRecorder(modelOf(() => ({ content: "x" })));
    await retrievalOnly.run(
      retrievalOnly.options.parse({ type: "retrieval_only" }),
      contextOf(recorder, retriever, "Eiffel Tower"),
    );
    return (recorder.steps[0] as RetrievalStep).results;
  };
  const whole = await ranked({});
  // Each result is a whole document (its passage id is the document id), "long" once.
  assert.deepEqual(whole.map((r) => r.passage_id), ["short", "other", "long"]);
  assert.deepEqual(whole.map((r) => r.doc_id), ["short", "other", "long"]);
  const passages = await ranked({ document_ranking: "best_passage" });
  assert.deepEqual(passages.map((r) => r.passage_id), ["short#0", "other#0", "long#1", "long#0"]);
  // rag keeps ranking passages: they are what its prompt quotes.
  const config = retrieverSchema.parse({ top_k: 2, chunk: { size: 16 } });
  const recorder = new TraceRecorder(modelOf(() => ({ content: "x" })));
  await rag.run(
    rag.options.parse({ type: "rag" }),
    contextOf(
      recorder,
      await new RunRetrievers(split).get({ key: "k", name: "r", config }, signal),
      "Eiffel Tower",
    ),
  );
  assert.deepEqual((recorder.steps[0] as RetrievalStep).results.map((r) => r.passage_id), [
    "short#0",
    "other#0",
  ]);
});

Deno.test("retrieval_only and rag search a question longer than the search tool's limit", async () => {
  const long = `${"aerodynamic boundary layer ".repeat(60)} Eiffel Tower in Paris`;
  assert.ok(long.length > 1000);
  const recorder = new TraceRecorder(modelOf(() => ({ content: "x" })));
  await retrievalOnly.run(
    retrievalOnly.options.parse({ type: "retrieval_only" }),
    contextOf(recorder, await retrieverOf(1), long),
  );
  const step = recorder.steps[0] as RetrievalStep;
  assert.equal(step.error, null);
  assert.equal(step.query, long);
  assert.deepEqual(step.results.map((r) => r.doc_id), ["eiffel"]);
});

Deno.test("retrieval_only ends the question as a retrieval error when its retriever fails", async () => {
  const recorder = new TraceRecorder(modelOf(() => ({ content: "x" })));
  await assert.rejects(
    retrievalOnly.run(
      retrievalOnly.options.parse({ type: "retrieval_only" }),
      contextOf(recorder, brokenRetriever, "q"),
    ),
    RetrievalFailedError,
  );
});
