import assert from "node:assert/strict";
import { staticGraph } from "../../support/static_graph.ts";

Deno.test("the sandbox worker loads no Node module, no CommonJS package and no retriever until a tool needs one", async () => {
  const graph = [...await staticGraph("tools/sandbox/builtin_worker.ts")];
  assert.ok(graph.some((s) => s.endsWith("tools/corpus_grep.ts")), "graph was walked");
  // Each of these starts Node compatibility in the worker (tens of ms before the first question);
  // the regex engine loads them when the first pattern is compiled.
  assert.deepEqual(graph.filter((s) => s.startsWith("node:")), []);
  assert.deepEqual(graph.filter((s) => s.startsWith("npm:") && !s.startsWith("npm:zod@")), []);
  assert.deepEqual(
    graph.filter((s) => /\/lib\/(lexical\/(bm25|tokenizer)|retrieval\/retriever)\.ts$/.test(s)),
    [],
  );
});

Deno.test("the tools' engines are outside the static graphs: the worker loads them in the background at start", async () => {
  const graph = [...await staticGraph("tools/sandbox/builtin_worker.ts")];
  assert.ok(graph.some((s) => s.endsWith("tools/calculator.ts")), "graph was walked");
  assert.deepEqual(
    graph.filter((s) => /\/(lib\/calc\/|tools\/corpus_grep_engine\.ts$)/.test(s)),
    [],
  );
});
