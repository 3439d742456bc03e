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
    /systems: +closed_book \(closed_book\), rag_bm25 \(rag\), rag_vector \(rag\), rag_hybrid \(rag\), agent_search_only \(agent_search\), agent_with_tools \(agent_search\), agent_all_tools \(agent_search\), code_agent \(code_agent\)/,
  );
  assert.match(
    result.stdout,
    /retrievers: bm25 \(bm25\): rag_bm25; vector_hashing \(vector\): rag_vector; hybrid_hashing \(hybrid\): rag_hybrid; default \(bm25\): agent_search_only, agent_with_tools, agent_all_tools, code_agent\n/,
  );
  assert.match(
    result.stdout,
    /models: +gpt-4o-mini \(closed_book, rag_bm25, rag_vector, rag_hybrid, agent_search_only, agent_with_tools, agent_all_tools, code_agent, grep_agent\)\n/,
  );
  assert.match(result.stdout, /corpus: +31 documents, 1 table$/m);
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

Deno.test("validate: a code agent's backstop below its CPU limit is refused, saying why (exit 2)", async () => {
  await using t = await tempTree({
    "bad.yaml": `name: bad
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
systems:
  - {type: code_agent, name: c, program_timeout_s: 10, program_wall_timeout_s: 2}
`,
  });
  const result = await execCli([`--allow-read=${t.dir}`], ["validate", t.path("bad.yaml")]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr.trim(),
    `Cannot load config "${
      t.path("bad.yaml")
    }" (line 5, column 80): systems[0].program_wall_timeout_s: must be at least program_timeout_s: it is the backstop for a program that waits, and a lower one would stop programs by the clock, not by their CPU time`,
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

Deno.test("validate: every problem of a BEIR folder is reported in one pass (exit 2)", async () => {
  await using t = await tempTree({
    "b/corpus.jsonl": [
      '{"_id": "d1", "text": "a"}',
      '{"_id": "d1", "text": "b"}',
      '{"_id": "d2"}',
      "not json",
    ].join("\n") + "\n",
    "b/queries.jsonl": [
      '{"_id": "q1", "text": "x"}',
      '{"_id": "q1", "text": "y"}',
      '{"_id": "q2", "text": "  "}',
      '{"_id": "q3", "text": "z"}',
    ].join("\n") + "\n",
    "b/qrels/test.tsv": [
      "query-id\tcorpus-id\tscore",
      "q1\td1\t1",
      "q9\td1\t1",
      "q3\td7\t1",
      "q3\td1\t0.5",
      "q3",
      "q1\td1\t1",
      "q2\td2\t1",
    ].join("\n") + "\n",
    "c.yaml":
      "name: b\ncorpus: {beir: b}\nquestions: {beir: b, split: test}\nsystems: [{type: retrieval_only}]\n",
  });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  const corpus = `Cannot load corpus "${t.path("b/corpus.jsonl")}"`;
  const queries = `Cannot load questions "${t.path("b/queries.jsonl")}"`;
  const qrels = `Cannot load questions "${t.path("b/qrels/test.tsv")}"`;
  assert.deepEqual(result.stderr.split("\n"), [
    `${corpus} (line 2): document id "d1" is also on line 1`,
    `${corpus} (line 3): field "text" is missing`,
    `${corpus} (line 4): invalid JSON (Unexpected token 'o', "not json" is not valid JSON)`,
    `${queries} (line 2): query id "q1" is also on line 1`,
    `${queries} (line 3): field "text": must not be blank`,
    `${qrels} (line 3): query-id "q9" is not in queries.jsonl`,
    `${qrels} (line 4): corpus-id "d7" is not a document of the corpus`,
    `${qrels} (line 5): score "0.5" is not an integer between -1000 and 1000`,
    `${qrels} (line 6): expected 3 tab-separated fields (query-id, corpus-id, score), got 1`,
    `${qrels} (line 7): the pair q1 / d1 is also on line 2`,
  ]);
});

Deno.test("validate: a YAML alias bomb in the questions is a config error naming the file (exit 2)", async () => {
  let bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < 9; i++) {
    const name = String.fromCharCode(97 + i);
    bomb += `${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]\n`;
  }
  await using t = await tempTree({
    "c.yaml": `name: c
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
systems: [{type: closed_book}]
`,
    "q.yaml": bomb,
  });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /^Cannot load questions ".*q\.yaml" \(line 6, column 8\): aliases expand this file to more than 100000 extra values \(at \*e\);.* alias bomb;/,
  );
});

Deno.test("validate: questions or a mock script that are not UTF-8 are refused with the byte offset (exit 2)", async () => {
  await using t = await tempTree({
    "c.yaml": `name: c
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
mock_script: m.yaml
systems: [{type: closed_book}]
`,
    "q.yaml": "- {id: a, question: A?, checks: [{type: contains, value: x}]}\n",
  });
  const latin1 = (text: string) => new Uint8Array([...text].map((c) => c.charCodeAt(0)));
  await Deno.writeFile(t.path("m.yaml"), latin1('"A?":\n  - {answer: "caf\u00e9"}\n'));
  let result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `Cannot read mock script "${
      t.path("m.yaml")
    }": it is not valid UTF-8 (byte 23, line 2); save it as UTF-8.`,
  );
  await Deno.writeFile(t.path("q.yaml"), latin1("- {id: a, question: \u00c9t\u00e9?}\n"));
  result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `Cannot read questions "${
      t.path("q.yaml")
    }": it is not valid UTF-8 (byte 20, line 1); save it as UTF-8.`,
  );
});

Deno.test("validate: reports corpus files it skipped, binary files and links among them", async () => {
  await using t = await tempTree({
    "c.yaml": `name: c
corpus: corpus
questions: q.yaml
systems: [{type: closed_book}]
`,
    "q.yaml": "- {id: a, question: A?, checks: [{type: contains, value: x}]}\n",
    "corpus/a.txt": "Text.",
  });
  await Deno.writeFile(t.path("corpus/b.md"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
  await Deno.symlink("/nonexistent/target.txt", t.path("corpus/dead.txt"));
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /corpus: +1 document, 0 tables$/m);
  assert.equal(
    result.stderr,
    [
      "corpus: skipped 1 binary file (a NUL byte in the first 8 KB): b.md",
      "corpus: skipped 1 symbolic link not followed: dead.txt -> /nonexistent/target.txt (broken)",
    ].join("\n"),
  );
});

Deno.test("validate: mock-script calls, without: tools and fragments are checked, all in one pass", async () => {
  await using t = await tempTree({
    "c.yaml": `name: c
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
mock_script: m.yaml
systems: [{type: agent_search, tools: [calculator]}]
`,
    "q.yaml":
      "- {id: a, question: How tall is the Eiffel Tower?, checks: [{type: contains, value: x}]}\n",
    "m.yaml": '"Eiffel Tower":\n  - {call: serch}\n  - {answer: a, without: {calculater: b}}\n' +
      '"Eifel Tower height":\n  - {answer: c}\n',
  });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  const file = t.path("m.yaml");
  assert.deepEqual(result.stderr.split("\n"), [
    `Cannot load mock script "${file}" (line 2, column 12): in "Eiffel Tower": call to unknown tool "serch" — did you mean "search"?`,
    `Cannot load mock script "${file}" (line 3, column 27): in "Eiffel Tower": without: names unknown tool "calculater" — did you mean "calculator"?`,
    `Cannot load mock script "${file}" (line 4, column 1): fragment "Eifel Tower height" matches no question, so it is never used — a fragment must appear in a question's text (compared ignoring case)`,
  ]);
});

Deno.test("validate: a binary questions file (UTF-16 text, an executable) is refused as binary (exit 2)", async () => {
  await using t = await tempTree({
    "c.yaml": `name: c
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
systems: [{type: closed_book}]
`,
  });
  // "- id" in UTF-16 LE without a byte-order mark: valid UTF-8 bytes, but NUL after each letter.
  await Deno.writeFile(t.path("q.yaml"), new Uint8Array([0x2d, 0, 0x20, 0, 0x69, 0, 0x64, 0]));
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    `Cannot read questions "${
      t.path("q.yaml")
    }": it is a binary file, not text (a NUL byte at byte 1); give a UTF-8 text file.`,
  );
});
