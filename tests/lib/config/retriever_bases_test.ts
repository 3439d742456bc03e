import assert from "node:assert/strict";
import type { ConfigIssue } from "../../../lib/errors.ts";
import { baseContext, resolveBase } from "../../../lib/config/retriever_bases.ts";
import { type RetrieverConfig, retrieverSchema } from "../../../lib/config/retriever_schema.ts";
import { RETRIEVER_KINDS } from "../../../lib/retrieval/kinds/registry.ts";
import { fixedSource } from "../../../lib/util/yaml_source.ts";

Deno.test("a reranker's base is resolved because its kind wraps (the registry's facet), not by its name", () => {
  assert.equal(RETRIEVER_KINDS.get("rerank")?.wraps, true);
  for (const [kind, def] of RETRIEVER_KINDS) {
    if (kind !== "rerank") assert.equal(def.wraps, false, kind);
  }
});

Deno.test("a newly registered wrapping kind has its base resolved like a reranker's; an unregistered one's is left alone", () => {
  const first = retrieverSchema.parse({ kind: "bm25", top_k: 50 });
  const raw = { retrievers: { first } as Record<string, RetrieverConfig> };
  // "cascade": a kind the next engineer adds, with a base of its own.
  const kinds = new Map<string, { wraps: boolean }>([
    ...RETRIEVER_KINDS,
    ["cascade", { wraps: true }],
  ]);
  const problems: ConfigIssue[] = [];
  const source = fixedSource("c.yaml", raw);
  const context = baseContext(raw, source, problems, kinds);
  const cascade = { kind: "cascade", top_k: 5, base: "first" } as unknown as RetrieverConfig;
  const resolved = resolveBase(
    cascade,
    ["retrievers", "cascade"],
    ["cascade"],
    context,
  ) as unknown as {
    base: RetrieverConfig;
  };
  assert.equal(problems.length, 0);
  assert.deepEqual(resolved.base, first);
  // A name that is no entry and no kind: the reranker's problem, for the new kind too.
  const unknown = { kind: "cascade", top_k: 5, base: "frist" } as unknown as RetrieverConfig;
  assert.equal(resolveBase(unknown, ["retrievers", "x"], ["x"], context), null);
  assert.match(problems[0].message, /unknown retriever "frist"/);
  // Without the facet the same entry is not a wrapper: its base stays a name.
  const plain = baseContext(raw, source, [], RETRIEVER_KINDS);
  assert.equal(resolveBase(cascade, ["retrievers", "cascade"], ["cascade"], plain), cascade);
});
