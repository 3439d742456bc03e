import assert from "node:assert/strict";
import { planSystems } from "../../../lib/cli/plan.ts";
import { REGISTRIES } from "../../../lib/cli/setup.ts";
import { parseConfig, type Registries } from "../../../lib/config/load.ts";
import { search } from "../../../tools/search.ts";
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

Deno.test("plan: a retriever kind without a builder is a clear error, and nothing is left open", async () => {
  // A config checked against every kind, run by a build that has no vector builder.
  const everyKind = { ...REGISTRIES, retrieverKinds: undefined };
  const config = configOf("  - {type: rag, retriever: {kind: vector}}\n", "", everyKind);
  await assert.rejects(
    planSystems(config, corpus, {
      concurrency: 1,
      inProcess: true,
      retrieverBuilders: new Map(),
    }),
    /Cannot build retriever "rag": kind "vector" is not available in this version of ragbench/,
  );
});
