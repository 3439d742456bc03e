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
