import assert from "node:assert/strict";
import { staticGraph } from "../../support/static_graph.ts";

Deno.test("the run command loads neither the OpenAI SDK nor the MCP SDK until an endpoint is used", async () => {
  const graph = await staticGraph("lib/cli/run_command.ts");
  assert.ok([...graph].some((s) => s.endsWith("lib/dense/embedders.ts")), "graph was walked");
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
    /\/lib\/grep\/(line_scan|regex_scan)\.ts$/,
    /\/lib\/regex\/(re2_automaton|re2_prefilter)\.ts$/,
    /\/tools\/sandbox\/(code_host|subprocess_host|tool_process|child_watchdog)\.ts$/,
    /\/tools\/mcp\/(host|pool|connection)\.ts$/,
    /\/lib\/retrieval\/(vector_retriever|hybrid_retriever)\.ts$/,
    /\/lib\/dense\/vector_index\.ts$/,
    /\/lib\/data\/beir\.ts$/,
  ];
  assert.deepEqual(graph.filter((s) => lazy.some((re) => re.test(s))), []);
});

Deno.test("the run command's start-up graph starts none of Deno's Node emulation but node:sqlite", async () => {
  const graph = [...await staticGraph("lib/cli/run_command.ts")];
  assert.ok(graph.some((s) => s.endsWith("lib/lexical/tokenizer.ts")), "graph was walked");
  // node:path and node:url load the emulation's base (6-10 ms), node:crypto, node:module and
  // node:process most of it (10-20 ms); any CommonJS package loads its module loader. node:sqlite
  // stands alone (~1.5 ms). The packages below are all ES modules.
  assert.deepEqual(graph.filter((s) => s.startsWith("node:") && s !== "node:sqlite"), []);
  assert.deepEqual(
    graph.filter((s) => s.startsWith("npm:") && !/^npm:\/?(zod|js-yaml|@noble\/hashes)@/.test(s)),
    [],
  );
});

Deno.test("no module of lib/, tools/ or systems/ imports node:path or node:url but for types", async () => {
  const offenders: string[] = [];
  let scanned = 0;
  for (const dir of ["lib", "tools", "systems"]) {
    for await (const file of sourceFiles(new URL(`../../../${dir}/`, import.meta.url))) {
      scanned++;
      const text = await Deno.readTextFile(file);
      // A static import (not \`import type\`) or a dynamic one outside lib/regex/re2_instance.ts, whose
      // loader runs in the sandbox worker on the first regex.
      const runtime = /^import\s+(?!type\b)[^;]*from\s*"node:(path|url)"/m.test(text) ||
        (!file.pathname.endsWith("/lib/regex/re2_instance.ts") &&
          /import\("node:(path|url)"\)/.test(text));
      if (runtime) offenders.push(file.pathname);
    }
  }
  assert.ok(scanned > 100, `only ${scanned} files scanned`);
  assert.deepEqual(offenders, []);
});

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory && entry.name !== "vendor") {
      yield* sourceFiles(new URL(`${entry.name}/`, dir));
    } else if (entry.isFile && entry.name.endsWith(".ts")) yield new URL(entry.name, dir);
  }
}
