import assert from "node:assert/strict";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import type { Config } from "../../../lib/config/types.ts";
import { ConfigError } from "../../../lib/errors.ts";
import type { RetrieverConfig } from "../../../lib/config/retriever_schema.ts";
import { rerankBase } from "../../../lib/retrieval/remote/engine_keys.ts";

/** `config` and the retrievers it is built over (a reranker's base, its base's, ...). */
function retrieverParts(config: RetrieverConfig): RetrieverConfig[] {
  const parts: RetrieverConfig[] = [];
  let at: RetrieverConfig | null = config;
  while (at !== null && parts.length < 10) {
    parts.push(at);
    at = at.kind === "rerank" ? rerankBase(at) as RetrieverConfig | null : null;
  }
  return parts;
}
import { maskUrl, persistedRetriever } from "../../../lib/config/retriever_secrets.ts";

const WHERE = { file: "r.yaml", absolute: "/project/configs/r.yaml" };
const BASE = "name: t\ncorpus: c.json\nquestions: q.yaml\n";

function load(text: string): Config {
  return parseConfig(BASE + text, WHERE, REGISTRIES);
}

function errorOf(text: string): string {
  try {
    load(text);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  throw new Error("expected a config error");
}

Deno.test("config: each engine kind loads with its defaults", () => {
  const config = load(`retrievers:
  r: {kind: rerank, base: bm25, model: m, base_url: "http://127.0.0.1:8000/v1"}
  h: {kind: http, url: "http://127.0.0.1:8080/search"}
  p: {kind: postgres, connection: "\${PG_URL}"}
  o: {kind: opensearch, url: "http://127.0.0.1:9200"}
  e: {kind: elasticsearch, url: "http://127.0.0.1:9200", search: knn, embedding: {provider: hashing}}
systems: [{type: retrieval_only, retriever: r}]
`);
  const { r, h, p, o, e } = config.retrievers;
  assert.equal(r.kind === "rerank" && r.top_n, 50);
  assert.equal(h.kind === "http" && h.results, "$.results");
  assert.equal(p.kind === "postgres" && p.query, "or");
  assert.equal(o.kind === "opensearch" && o.search, "bm25");
  assert.equal(e.kind === "elasticsearch" && e.embedding.provider, "hashing");
  // The reranker's base is resolved into the retriever it names.
  assert.deepEqual(
    retrieverParts(r).map((c) => c.kind),
    ["rerank", "bm25"],
  );
});

Deno.test("config: a reranker's base may be a name, a chain, or inline", () => {
  const config = load(`retrievers:
  small: {kind: bm25, bm25: {k1: 0.9}}
  first: {kind: rerank, base: small, model: a, base_url: "http://x:1/v1"}
  second: {kind: rerank, base: first, model: b, base_url: "http://x:1/v1"}
systems:
  - {type: retrieval_only, name: s, retriever: second}
  - {type: retrieval_only, name: i, retriever: {kind: rerank, model: c, base_url: "http://x:1/v1", base: {kind: vector, embedding: {provider: hashing}}}}
`);
  const [s, i] = config.systems;
  const chain = retrieverParts(s.retriever!.config);
  assert.deepEqual(chain.map((c) => c.kind), ["rerank", "rerank", "bm25"]);
  assert.equal((chain[2] as RetrieverConfig & { bm25: { k1: number } }).bm25.k1, 0.9);
  assert.deepEqual(retrieverParts(i.retriever!.config).map((c) => c.kind), ["rerank", "vector"]);
});

Deno.test("config: engine retrievers' mistakes are errors with file:line and a did-you-mean", () => {
  const cases: Array<[string, string]> = [
    [
      `retrievers:\n  r: {kind: rerankk}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 5, column 13): unknown kind "rerankk" in retrievers.r — did you mean "rerank"?',
    ],
    [
      `retrievers:\n  r: {kind: rerank, base: bm25, model: m, base_url: "http://x:1", top_m: 5}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 5, column 67): unknown key "top_m" in retrievers.r — did you mean "top_k"?',
    ],
    [
      `retrievers:\n  r: {kind: rerank, base: bm52, model: m, base_url: "http://x:1"}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 5, column 27): unknown retriever "bm52" as the reranker\'s base — did you mean "bm25"?',
    ],
    [
      `retrievers:\n  a: {kind: rerank, base: b, model: m, base_url: "http://x:1"}\n  b: {kind: rerank, base: a, model: m, base_url: "http://x:1"}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 6, column 27): the reranker\'s base leads back to itself (a -> b -> a)',
    ],
    [
      `retrievers:\n  r: {kind: rerank, model: m, base_url: "http://x:1", base: {kind: bm25, bm25: {k2: 1}}}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 5, column 81): unknown key "k2" in retrievers.r.base.bm25 — did you mean "k1"?',
    ],
    [
      `retrievers:\n  h: {kind: http, url: "http://x:1/s", id: "doc_id"}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 5, column 44): retrievers.h.id: is not a JSON path: a path starts with "$"',
    ],
    [
      `retrievers:\n  h: {kind: http, url: "ftp://x/s"}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 5, column 24): retrievers.h.url: must be an http:// or https:// URL',
    ],
    [
      `retrievers:\n  p: {kind: postgres, connection: x, chunk: {size: 100}, bm25: {k1: 1}}\nsystems: [{type: rag}]\n`,
      'Cannot load config "r.yaml" (line 5, column 58): unknown key "bm25" in retrievers.p',
    ],
  ];
  for (const [text, message] of cases) {
    const got = errorOf(text);
    assert.ok(got.startsWith(message), `got:  ${got}\nwant: ${message}`);
  }
});

Deno.test("the run folder's copy of a retriever masks literal secrets and keeps templates", () => {
  assert.equal(
    maskUrl("postgresql://reader:hunter22@db:5432/x?sslmode=require"),
    "postgresql://reader:[secret]@db:5432/x?sslmode=require",
  );
  assert.equal(maskUrl("postgresql://reader:${PW}@db/x"), "postgresql://reader:${PW}@db/x");
  assert.equal(
    maskUrl("postgresql://u@/x?host=/s&password=abc"),
    "postgresql://u@/x?host=/s&password=[secret]",
  );
  assert.equal(maskUrl("https://api.example/v1"), "https://api.example/v1");
  const config = load(`retrievers:
  e: {kind: elasticsearch, url: "https://u:pw1@es:9200", password: literal-pw, api_key: "\${KEY}", headers: {X-A: token-1, X-B: "Bearer \${T}"}}
  r: {kind: rerank, model: m, base_url: "http://x:1", headers: {Authorization: Bearer sk-1}, base: {kind: http, url: "http://s/x", headers: {K: v-secret}}}
systems: [{type: retrieval_only, retriever: e}]
`);
  const e = persistedRetriever(config.retrievers.e);
  const r = persistedRetriever(config.retrievers.r);
  const text = JSON.stringify([e, r]);
  for (const secret of ["pw1", "literal-pw", "token-1", "sk-1", "v-secret"]) {
    assert.ok(!text.includes(secret), `${secret} kept`);
  }
  assert.ok(text.includes("${KEY}") && text.includes("Bearer ${T}"));
  // The config itself is not changed.
  assert.equal((config.retrievers.e as { password: string }).password, "literal-pw");
});
