import assert from "node:assert/strict";
import { offersBuiltins, planSystems } from "../../../lib/plan/plan.ts";
import { startWorker } from "../../../tools/sandbox/early_worker.ts";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import type { Registries } from "../../../lib/config/types.ts";
import { createEmbedderPool } from "../../../lib/dense/embedders.ts";
import { buildBm25Retriever, RETRIEVER_BUILDERS } from "../../../lib/retrieval/registry.ts";
import { search } from "../../../tools/search.ts";
import { startFakeEmbeddingsServer } from "../../support/fake_embeddings_server.ts";
import { tempTree } from "../../support/temp.ts";
import { corpusOf } from "../../support/tool_context.ts";

const corpus = corpusOf([
  { id: "river", text: "The rivers were flowing fast after the storm." },
  { id: "desert", text: "A dry desert with no water at all." },
]);

function configOf(systems: string, retrievers = "", registries: Registries = REGISTRIES) {
  return parseConfig(
    `name: t\ncorpus: c.json\nquestions: q.yaml\n${retrievers}systems:\n${systems}`,
    { file: "p.yaml", absolute: "/p/p.yaml" },
    registries,
  );
}

Deno.test("plan: systems naming the same retriever share one build", async () => {
  const config = configOf(
    `  - {type: rag, name: a, retriever: shared}
  - {type: retrieval_only, name: b, retriever: shared}
  - {type: agent_search, name: c, retriever: shared, tools: []}
  - {type: agent_search, name: d, tools: []}
  - {type: agent_search, name: e, tools: [calculator]}
  - {type: closed_book, name: f}
`,
    "retrievers:\n  shared: {top_k: 2, bm25: {stemmer: plural}}\n",
  );
  const plan = await planSystems(config, corpus, { concurrency: 1, inProcess: true });
  try {
    // "shared" once, and the default (d, e) once.
    assert.equal(plan.retrievers.builds, 2);
    const [a, b, c, d, e, f] = plan.systems;
    assert.ok(a.retriever !== null);
    assert.equal(b.retriever, a.retriever);
    assert.equal(c.retriever, a.retriever);
    assert.equal(e.retriever, d.retriever);
    assert.notEqual(d.retriever, a.retriever);
    assert.equal(f.retriever, null);
    assert.equal(a.retriever.topK, 2);
    // c's search tool is served over the shared retriever: the plural rule finds no "flow".
    const searchOf = (s: typeof c) => s.toolbox.tools.find((t) => t.name === "search")!;
    assert.equal(searchOf(d).host, searchOf(e).host);
    assert.notEqual(searchOf(c).host, searchOf(d).host);
    const run = async (s: typeof c) => {
      const session = s.toolbox.session(`${s.name}/q`);
      const { result } = await session.execute(
        "search",
        JSON.stringify({ query: "flows" }),
        new AbortController().signal,
      );
      session.close();
      return result;
    };
    assert.equal(
      (await run(c)).output,
      'No passage matched "flows". Try other words, synonyms or fewer terms.',
    );
    assert.match((await run(d)).output, /^\[1\] doc_id: river \| passage: river#0/);
  } finally {
    await plan.close();
  }
});

Deno.test("plan: a retrieval_only system's retriever builds its document index before the first question", async () => {
  const prepared: string[] = [];
  const builders = new Map(RETRIEVER_BUILDERS);
  builders.set("bm25", async (request) => {
    const retriever = await buildBm25Retriever(request);
    const prepare = retriever.prepareDocuments!;
    retriever.prepareDocuments = () => {
      prepared.push(request.name);
      prepare();
    };
    return retriever;
  });
  const config = configOf(
    `  - {type: rag, name: a, retriever: passages}
  - {type: agent_search, name: c, retriever: passages, tools: []}
  - {type: retrieval_only, name: b, retriever: documents}
`,
    "retrievers:\n  passages: {top_k: 2}\n  documents: {top_k: 3, bm25: {k1: 1.2}}\n",
  );
  const plan = await planSystems(config, corpus, {
    concurrency: 1,
    inProcess: true,
    retrieverBuilders: builders,
  });
  try {
    assert.deepEqual(prepared, ["documents"]);
  } finally {
    await plan.close();
  }
});

Deno.test("plan: search runs in this process, not in the sandbox worker", async () => {
  assert.equal(search.prepare, undefined);
  const config = configOf("  - {type: agent_search, tools: [calculator]}\n");
  const plan = await planSystems(config, corpus, { concurrency: 1 });
  try {
    const tools = plan.systems[0].toolbox.tools;
    const searchHost = tools.find((t) => t.name === "search")!.host;
    const workerHost = tools.find((t) => t.name === "calculator")!.host;
    assert.notEqual(searchHost, workerHost);
    const session = plan.systems[0].toolbox.session("q");
    const { result } = await session.execute(
      "search",
      JSON.stringify({ query: "desert water" }),
      new AbortController().signal,
    );
    session.close();
    assert.equal(result.error, null);
    assert.match(result.output, /doc_id: desert/);
  } finally {
    await plan.close();
  }
});

Deno.test("plan: vector and hybrid retrievers are built once, shared, and served by search", async () => {
  const config = configOf(
    `  - {type: rag, name: a, retriever: dense}
  - {type: retrieval_only, name: b, retriever: mix}
  - {type: agent_search, name: c, retriever: mix, tools: []}
`,
    `retrievers:
  dense: {kind: vector, embedding: {provider: hashing, dimensions: 64}}
  mix: {kind: hybrid, embedding: {provider: hashing, dimensions: 64}}
`,
  );
  const plan = await planSystems(config, corpus, { concurrency: 1, inProcess: true });
  try {
    // dense; mix and its BM25 part (its vector part is dense's build).
    assert.equal(plan.retrievers.builds, 3);
    const [a, b, c] = plan.systems;
    assert.equal(a.retriever?.kind, "vector");
    assert.equal(b.retriever?.kind, "hybrid");
    assert.equal(c.retriever, b.retriever);
    const session = c.toolbox.session("q");
    const { result } = await session.execute(
      "search",
      JSON.stringify({ query: "desert water", top_k: 1 }),
      new AbortController().signal,
    );
    session.close();
    assert.equal(result.error, null);
    assert.match(result.output, /^\[1\] doc_id: desert/);
  } finally {
    await plan.close();
  }
});

Deno.test("plan: a query embedding that fails is an error result the model sees, and search goes on", async () => {
  await using tmp = await tempTree();
  await using server = startFakeEmbeddingsServer((request) =>
    request.body.input?.[0]?.includes("broken")
      ? { status: 500, json: { error: { message: "model crashed" } } }
      : "default"
  );
  const config = configOf(
    "  - {type: agent_search, retriever: dense, tools: []}\n",
    `retrievers:
  dense:
    kind: vector
    embedding: {base_url: "${server.baseUrl}", model: m, api_key_env: null, max_retries: 0}
`,
  );
  using embedders = createEmbedderPool({ mock: false, cacheDir: () => tmp.dir });
  const plan = await planSystems(config, corpus, { concurrency: 1, inProcess: true, embedders });
  try {
    const session = plan.systems[0].toolbox.session("q");
    const signal = new AbortController().signal;
    const broken = await session.execute("search", JSON.stringify({ query: "broken" }), signal);
    assert.equal(broken.result.error?.kind, "unavailable");
    assert.equal(
      broken.result.error?.message,
      "Search is unavailable right now (the retriever failed). Try again, or answer with what you have.",
    );
    const fine = await session.execute("search", JSON.stringify({ query: "desert water" }), signal);
    session.close();
    assert.equal(fine.result.error, null);
    assert.match(fine.result.output, /^\[1\] doc_id: desert/);
  } finally {
    await plan.close();
  }
});

Deno.test("plan: the sandbox worker is not started when no system offers a built-in", async () => {
  const started: string[] = [];
  const original = globalThis.Worker;
  globalThis.Worker = class {
    constructor(url: string | URL) {
      started.push(String(url));
      throw new Error("no worker may start");
    }
  } as unknown as typeof Worker;
  try {
    const config = configOf(
      "  - {type: closed_book, name: a}\n  - {type: rag, name: b}\n  - {type: agent_search, name: c, tools: []}\n",
    );
    const plan = await planSystems(config, corpus, { concurrency: 1 });
    await plan.close();
    assert.deepEqual(started, []);
    // With a built-in offered, the worker is started while the plan is made.
    const withTool = configOf("  - {type: agent_search, name: d, tools: [calculator]}\n");
    await assert.rejects(planSystems(withTool, corpus, { concurrency: 1 }));
    assert.equal(started.length, 1);
  } finally {
    globalThis.Worker = original;
  }
});

Deno.test("plan: offersBuiltins says whether a plan starts the sandbox worker (the run starts it early then)", () => {
  const none = configOf(
    "  - {type: closed_book, name: a}\n  - {type: rag, name: b}\n  - {type: agent_search, name: c, tools: []}\n",
  );
  assert.equal(offersBuiltins(none), false);
  assert.equal(offersBuiltins(configOf("  - {type: grep_agent, name: g}\n")), true);
  assert.equal(
    offersBuiltins(configOf("  - {type: agent_search, name: d, tools: [calculator]}\n")),
    true,
  );
});

Deno.test("plan: a worker started ahead is the one the plan's built-ins run in", async () => {
  const made: string[] = [];
  const original = globalThis.Worker;
  globalThis.Worker = class extends original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      made.push(String(url));
    }
  };
  try {
    const config = configOf("  - {type: agent_search, name: d, tools: [calculator]}\n");
    const started = startWorker();
    const plan = await planSystems(config, corpus, { concurrency: 1, startedWorker: started });
    try {
      const session = plan.systems[0].toolbox.session("q");
      const { result } = await session.execute(
        "calculator",
        '{"expression": "6 * 7"}',
        new AbortController().signal,
      );
      assert.equal(result.output, "42");
      session.close();
    } finally {
      await plan.close();
    }
    assert.equal(made.length, 1);
  } finally {
    globalThis.Worker = original;
  }
});
