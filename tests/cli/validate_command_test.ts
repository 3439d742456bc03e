import assert from "node:assert/strict";
import { join } from "node:path";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";
import { CRANFIELD } from "../support/shared_data.ts";

Deno.test("validate: the bundled config is OK and the summary names what it found", async () => {
  const result = await runCli(["validate", join(ROOT, "configs/all.yaml")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /: OK\n/);
  assert.match(
    result.stdout,
    /systems: +closed_book \(closed_book\), rag_bm25 \(rag\), agent_search_only \(agent_search\), agent_with_tools \(agent_search\), agent_all_tools \(agent_search\)/,
  );
  assert.match(
    result.stdout,
    /retrievers: bm25 \(bm25\): rag_bm25; default \(bm25\): agent_search_only, agent_with_tools, agent_all_tools\n/,
  );
  assert.match(result.stdout, /corpus: +31 documents, 1 tables/);
  assert.match(result.stdout, /questions: 21/);
  assert.match(result.stdout, /mock: +21 scripted questions/);
});

Deno.test("validate: a bad config exits 2 with file:line and a did-you-mean, with read permission only", async () => {
  await using t = await tempTree({
    "bad.yaml": `name: bad
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
systems:
  - type: agent_search
    tools: [calculater]
`,
  });
  const result = await execCli([`--allow-read=${t.dir}`], ["validate", t.path("bad.yaml")]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr.trim(),
    `Cannot load config "${
      t.path("bad.yaml")
    }" (line 6, column 13): unknown tool "calculater" — did you mean "calculator"?`,
  );
});

Deno.test("validate: a missing config file is a clear error (exit 2)", async () => {
  const result = await runCli(["validate", "/nonexistent/ragbench.yaml"]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    'Cannot read config "/nonexistent/ragbench.yaml": no such file or folder.',
  );
});

Deno.test("validate: a problem in the questions file names that file and line", async () => {
  await using t = await tempTree({
    "c.yaml": `name: c
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
systems: [{type: closed_book}]
`,
    "q.yaml": "- id: a\n  question: A?\n  checks: [{type: contain, value: x}]\n",
  });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /^Cannot load questions ".*q\.yaml" \(line 3, column 19\): unknown type "contain" in \[0\]\.checks\[0\] — did you mean "contains"\?$/,
  );
});

Deno.test("validate: a BEIR config loads and reports the empty documents as a warning", async () => {
  const cranfield = CRANFIELD;
  await using t = await tempTree({
    "beir.yaml":
      `name: b\ncorpus: {beir: ${cranfield}}\nquestions: {beir: ${cranfield}}\nsystems:\n  - {type: closed_book}\n`,
  });
  const result = await runCli(["validate", t.path("beir.yaml")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /corpus: +1400 documents, 0 tables/);
  assert.match(result.stdout, /questions: 225/);
  assert.match(result.stderr, /warning: corpus ".*": 2 of 1400 documents are empty/);
});
