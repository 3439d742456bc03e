import assert from "node:assert/strict";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import type { Config, Registries } from "../../../lib/config/types.ts";
import { ConfigError } from "../../../lib/errors.ts";
import { ownRetriever } from "../../../lib/config/retriever_schema.ts";

const WHERE = { file: "r.yaml", absolute: "/project/configs/r.yaml" };

function load(text: string, registries: Registries = REGISTRIES): Config {
  return parseConfig(text, WHERE, registries);
}

const BASE = `name: t
corpus: c.json
questions: q.yaml
`;

Deno.test("config: a system names a retriever of retrievers: and gets its settings", () => {
  const config = load(`${BASE}retrievers:
  small: {top_k: 3, chunk: {size: 100, overlap: 20}, bm25: {k1: 0.9, b: 0.4, stemmer: plural}}
systems:
  - {type: rag, name: rag_small, retriever: small}
  - {type: agent_search, name: agent_small, retriever: small}
  - {type: retrieval_only, name: ranks}
  - {type: closed_book}
`);
  const [rag, agent, ranks, closed] = config.systems;
  assert.equal(rag.retriever?.key, "named:small");
  assert.equal(agent.retriever?.key, "named:small");
  assert.equal(rag.retriever?.config, agent.retriever?.config);
  assert.deepEqual(rag.retriever?.config, {
    kind: "bm25",
    top_k: 3,
    chunk: { size: 100, overlap: 20, unit: "words" },
    bm25: {
      k1: 0.9,
      b: 0.4,
      stemmer: "plural",
      stopwords: "english",
      abbreviations: "keep",
      single_letters: "drop",
      query_repeats: "once",
      document_ranking: "whole",
    },
    embedding: ownRetriever(config.retrievers.small).embedding,
    fusion: { method: "rrf", k: 60, weights: { bm25: 1, vector: 1 } },
  });
  assert.equal(ranks.retriever?.name, "default");
  assert.deepEqual(ownRetriever(ranks.retriever!.config).bm25, {
    k1: 1.5,
    b: 0.75,
    stemmer: "snowball",
    stopwords: "english",
    abbreviations: "keep",
    single_letters: "drop",
    query_repeats: "once",
    document_ranking: "whole",
  });
  assert.equal(closed.retriever, null);
});

Deno.test("config: the bm25 options of issue 23 are read as written", () => {
  const config = load(`${BASE}retrievers:
  old: {bm25: {abbreviations: split, single_letters: keep, query_repeats: count, document_ranking: best_passage}}
systems: [{type: retrieval_only, retriever: old}]
`);
  const bm25 = ownRetriever(config.retrievers.old).bm25;
  assert.equal(bm25.abbreviations, "split");
  assert.equal(bm25.single_letters, "keep");
  assert.equal(bm25.query_repeats, "count");
  assert.equal(bm25.document_ranking, "best_passage");
});

Deno.test("config: a retriever named default is the one systems naming none use", () => {
  const config = load(`${BASE}retrievers:
  default: {top_k: 8}
systems:
  - {type: agent_search}
  - {type: rag, retriever: {top_k: 2}}
`);
  assert.equal(config.systems[0].retriever?.key, "named:default");
  assert.equal(config.systems[0].retriever?.config.top_k, 8);
  assert.equal(config.systems[1].retriever?.key, "inline:rag");
  assert.equal(config.systems[1].retriever?.name, "rag");
  assert.equal(config.systems[1].retriever?.config.top_k, 2);
});

const failures: Array<{ name: string; text: string; message: string; registries?: Registries }> = [
  {
    name: "an unknown retriever name",
    text:
      `${BASE}retrievers: {hybrid_small: {}}\nsystems:\n  - {type: rag, retriever: hybrid_smal}\n`,
    message:
      'Cannot load config "r.yaml" (line 6, column 28): unknown retriever "hybrid_smal" — did you mean "hybrid_small"?',
  },
  {
    name: "a retriever name when retrievers: is empty",
    text: `${BASE}systems:\n  - {type: rag, retriever: small}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 28): unknown retriever "small" — define it under retrievers: (e.g. retrievers: {small: {kind: bm25}})',
  },
  {
    name: "an unknown key in a named retriever",
    text: `${BASE}retrievers:\n  small: {topk: 3}\nsystems: [{type: rag, retriever: small}]\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 11): unknown key "topk" in retrievers.small — did you mean "top_k"?',
  },
  {
    name: "an unknown key in an inline retriever's bm25",
    text: `${BASE}systems:\n  - {type: rag, retriever: {bm25: {stemer: none}}}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 36): unknown key "stemer" in systems[0].retriever.bm25 — did you mean "stemmer"?',
  },
  {
    name: "an unknown stemmer",
    text:
      `${BASE}retrievers:\n  small: {bm25: {stemmer: porter}}\nsystems: [{type: rag, retriever: small}]\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 27): retrievers.small.bm25.stemmer: must be one of "snowball", "plural", "none"',
  },
  {
    name: "an unknown document_ranking",
    text:
      `${BASE}retrievers:\n  deep: {bm25: {document_ranking: max_passage}}\nsystems: [{type: retrieval_only, retriever: deep}]\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 35): retrievers.deep.bm25.document_ranking: must be one of "whole", "best_passage"',
  },
  {
    name: "an unknown abbreviations setting",
    text: `${BASE}systems:\n  - {type: rag, retriever: {bm25: {abbreviations: true}}}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 51): systems[0].retriever.bm25.abbreviations: must be one of "keep", "split"',
  },
  {
    name: "an unknown single_letters setting",
    text: `${BASE}systems:\n  - {type: rag, retriever: {bm25: {single_letters: no}}}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 52): systems[0].retriever.bm25.single_letters: must be one of "drop", "keep"',
  },
  {
    name: "an unknown query_repeats setting",
    text: `${BASE}systems:\n  - {type: rag, retriever: {bm25: {query_repeats: 2}}}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 51): systems[0].retriever.bm25.query_repeats: must be one of "once", "count"',
  },
  {
    name: "a misspelt document_ranking key",
    text:
      `${BASE}systems:\n  - {type: retrieval_only, retriever: {bm25: {document_rank: whole}}}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 47): unknown key "document_rank" in systems[0].retriever.bm25 — did you mean "document_ranking"?',
  },
  {
    name: "an overlap as large as the chunk size",
    text: `${BASE}systems:\n  - {type: rag, retriever: {chunk: {size: 50, overlap: 50}}}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 36): systems[0].retriever.chunk: overlap must be smaller than size',
  },
  {
    name: "a retriever name that is not a valid name",
    text: `${BASE}retrievers:\n  "bad name": {}\nsystems: [{type: rag}]\n`,
    message: 'Cannot load config "r.yaml"',
  },
  {
    name: "a retriever named like an Object.prototype member",
    text: `${BASE}retrievers:\n  constructor: {}\nsystems: [{type: rag, retriever: toString}]\n`,
    message:
      'Cannot load config "r.yaml" (line 6, column 34): unknown retriever "toString" — expected one of "constructor"',
  },
  {
    name: "a retriever named __proto__",
    text: `${BASE}retrievers:\n  __proto__: {}\nsystems: [{type: rag, retriever: __proto__}]\n`,
    // The key is kept (never dropped) and refused by the name rule where it is defined.
    message:
      'Cannot load config "r.yaml" (line 5, column 3): retriever name "__proto__" is not valid',
  },
  {
    name: "a retriever on a system that takes none",
    text: `${BASE}systems:\n  - {type: closed_book, retriever: default}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 25): system type "closed_book" takes no retriever — remove its retriever:, or use a system that retrieves (agent_search, rag, retrieval_only, code_agent, custom, ai_sdk, langgraph, openai_agents, mastra, llamaindex)',
  },
  {
    name: "a tools: list on rag",
    text: `${BASE}systems:\n  - {type: rag, tools: [calculator]}\n`,
    message:
      'Cannot load config "r.yaml" (line 5, column 17): system type "rag" takes no tools — remove its tools: list, or use a system that accepts tools (agent_search, code_agent, custom, ai_sdk, langgraph, openai_agents, mastra, llamaindex)',
  },
];

for (const f of failures) {
  Deno.test(`config: ${f.name} is an error with file:line`, () => {
    assert.throws(
      () => load(f.text, f.registries),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.ok(
          error.message.startsWith(f.message),
          `got:  ${error.message}\nwant: ${f.message}`,
        );
        return true;
      },
    );
  });
}

Deno.test("config: vector and hybrid retrievers load, named and inline", () => {
  const config = load(`${BASE}retrievers:
  dense: {kind: vector, embedding: {provider: hashing, dimensions: 64}}
systems:
  - {type: rag, name: a, retriever: dense}
  - {type: retrieval_only, name: b, retriever: {kind: hybrid, fusion: {k: 10}}}
`);
  const [a, b] = config.systems;
  assert.equal(a.retriever?.config.kind, "vector");
  assert.equal(a.retriever?.config.embedding.dimensions, 64);
  assert.equal(b.retriever?.config.kind, "hybrid");
  assert.equal(b.retriever?.config.fusion.k, 10);
});
