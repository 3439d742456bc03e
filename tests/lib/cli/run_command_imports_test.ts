import assert from "node:assert/strict";
import { staticGraph } from "../../support/static_graph.ts";

Deno.test("the run command loads neither the OpenAI SDK nor the MCP SDK until an endpoint is used", async () => {
  const graph = await staticGraph("lib/cli/run_command.ts");
  assert.ok([...graph].some((s) => s.endsWith("lib/retrieval/embedders.ts")), "graph was walked");
  const heavy = [...graph].filter((s) =>
    s.startsWith("npm:") && (s.includes("openai@") || s.includes("@modelcontextprotocol"))
  );
  assert.deepEqual(heavy, []);
});

Deno.test("the run command loads the CSV parser only for a corpus with a CSV table", async () => {
  const graph = await staticGraph("lib/cli/run_command.ts");
  assert.ok([...graph].some((s) => s.endsWith("lib/data/corpus.ts")), "graph was walked");
  assert.deepEqual([...graph].filter((s) => s.includes("csv-parse@")), []);
});

Deno.test("the run command's start-up graph leaves out what only some runs use", async () => {
  const graph = [...await staticGraph("lib/cli/run_command.ts")];
  assert.ok(graph.some((s) => s.endsWith("tools/corpus_grep.ts")), "graph was walked");
  // Each is loaded where it is first needed: the tools' engines in the sandbox worker, the rest
  // by a config that uses them. Every module here costs start-up time in every run.
  const lazy = [
    /\/lib\/calc\//,
    /\/tools\/corpus_grep_engine\.ts$/,
    /\/lib\/retrieval\/(line_scan|re2_automaton|re2_prefilter)\.ts$/,
    /\/tools\/sandbox\/(code_host|subprocess_host|tool_process|child_watchdog)\.ts$/,
    /\/tools\/mcp\/(host|pool|connection)\.ts$/,
    /\/lib\/retrieval\/(vector_retriever|vector_index|hybrid_retriever)\.ts$/,
    /\/lib\/data\/beir\.ts$/,
  ];
  assert.deepEqual(graph.filter((s) => lazy.some((re) => re.test(s))), []);
});
