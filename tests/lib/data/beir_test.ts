import assert from "node:assert/strict";
import { join } from "node:path";
import { loadBeirCorpus, loadBeirQuestions } from "../../../lib/data/beir.ts";
import { loadCorpora } from "../../../lib/data/corpus.ts";
import { loadQuestionSets } from "../../../lib/data/questions.ts";
import { ConfigError } from "../../../lib/errors.ts";
import { tempTree } from "../../support/temp.ts";
import { CRANFIELD } from "../../support/shared_data.ts";

const CORPUS = [
  '{"_id": "d1", "title": "Alpha", "text": "alpha text", "metadata": {}}',
  '{"_id": 2, "text": "no title here"}',
  '{"_id": "d3", "title": "", "text": "  "}',
].join("\n") + "\n";
const QUERIES = [
  '{"_id": "q1", "text": "alpha?"}',
  '{"_id": "q2", "text": "beta?"}',
  '{"_id": "q3", "text": "train only"}',
].join("\n") + "\n";
const QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\t2\t1\nq2\td3\t0\n";

function beirFiles(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    "corpus.jsonl": CORPUS,
    "queries.jsonl": QUERIES,
    "qrels/test.tsv": QRELS,
    ...overrides,
  };
}

async function errorOf(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    return error;
  }
  throw new Error("expected an error");
}

Deno.test("BEIR: corpus.jsonl becomes documents; empty ones are kept and counted", async () => {
  await using t = await tempTree(beirFiles());
  const { documents, empty } = await loadBeirCorpus(t.dir);
  assert.deepEqual(documents.map((d) => [d.id, d.title, d.text]), [
    ["d1", "Alpha", "alpha text"],
    ["2", "", "no title here"],
    ["d3", "", "  "],
  ]);
  assert.equal(empty, 1);
  const loaded = await loadCorpora([{ beir: t.dir }]);
  assert.equal(loaded.corpus.documents.length, 3);
  assert.deepEqual(loaded.warnings, [
    `corpus "${t.dir}": 1 of 3 documents is empty (no title, no text); kept, they can still be judged`,
  ]);
});

Deno.test("BEIR: judged queries become questions with graded evidence; unjudged ones are left out", async () => {
  await using t = await tempTree(beirFiles());
  const loaded = await loadBeirQuestions(t.dir, "test", {
    documentIds: new Set(["d1", "2", "d3"]),
  });
  assert.deepEqual(loaded.questions, [
    {
      id: "q1",
      question: "alpha?",
      evidence: [{ id: "d1", grade: 2 }, { id: "2", grade: 1 }],
      checks: [],
    },
    { id: "q2", question: "beta?", evidence: [], checks: [] },
  ]);
  assert.equal(loaded.unjudged, 1);
  assert.equal(loaded.noRelevant, 1);
  const warnings: string[] = [];
  const questions = await loadQuestionSets([{ beir: t.dir, split: "test" }], {
    toolNames: [],
    onWarning: (w) => warnings.push(w),
  });
  assert.equal(questions.length, 2);
  assert.deepEqual(warnings, [
    `questions "${t.dir}" (split test): 1 query has no qrels line in the split and is left out`,
    `questions "${t.dir}" (split test): 1 judged queries have no relevant document; their retrieval metrics stay empty`,
  ]);
});

Deno.test("BEIR: the real Cranfield folder loads with its two empty documents", async () => {
  const corpus = await loadBeirCorpus(CRANFIELD);
  assert.equal(corpus.documents.length, 1400);
  assert.equal(corpus.empty, 2);
  assert.deepEqual(
    corpus.documents.filter((d) => d.text.trim() === "").map((d) => d.id),
    ["471", "995"],
  );
  const loaded = await loadBeirQuestions(CRANFIELD, "test", {
    documentIds: new Set(corpus.documents.map((d) => d.id)),
  });
  assert.equal(loaded.questions.length, 225);
  assert.equal(loaded.questions.reduce((n, q) => n + q.evidence!.length, 0), 1612);
  assert.equal(loaded.unjudged, 0);
});

const bad: Array<
  { name: string; files: Record<string, string>; load: "corpus" | "questions"; message: string }
> = [
  {
    name: "a missing corpus.jsonl",
    files: { "queries.jsonl": QUERIES, "qrels/test.tsv": QRELS },
    load: "corpus",
    message: 'Cannot load corpus "DIR/corpus.jsonl": cannot read it: no such file or folder',
  },
  {
    name: "a missing queries.jsonl",
    files: { "corpus.jsonl": CORPUS, "qrels/test.tsv": QRELS },
    load: "questions",
    message: 'Cannot load questions "DIR/queries.jsonl": cannot read it: no such file or folder',
  },
  {
    name: "a missing qrels split",
    files: { "corpus.jsonl": CORPUS, "queries.jsonl": QUERIES, "qrels/dev.tsv": QRELS },
    load: "questions",
    message: 'Cannot load questions "DIR/qrels/test.tsv": cannot read it: no such file or folder',
  },
  {
    name: "a malformed corpus line",
    files: beirFiles({ "corpus.jsonl": '{"_id": "d1", "text": "x"}\n{"_id": "d2", "text": \n' }),
    load: "corpus",
    message: 'Cannot load corpus "DIR/corpus.jsonl" (line 2): invalid JSON',
  },
  {
    name: "a corpus line without text",
    files: beirFiles({ "corpus.jsonl": '\n{"_id": "d1", "title": "t"}\n' }),
    load: "corpus",
    message: 'Cannot load corpus "DIR/corpus.jsonl" (line 2): field "text" is missing',
  },
  {
    name: "a corpus line that is not an object",
    files: beirFiles({ "corpus.jsonl": '{"_id": "d1", "text": "x"}\n["d2", "y"]\n' }),
    load: "corpus",
    message:
      'Cannot load corpus "DIR/corpus.jsonl" (line 2): expected a JSON object with "_id" and "text"',
  },
  {
    name: "a corpus id that is neither a string nor an integer",
    files: beirFiles({ "corpus.jsonl": '{"_id": 1.5, "text": "x"}\n' }),
    load: "corpus",
    message:
      'Cannot load corpus "DIR/corpus.jsonl" (line 1): field "_id": must be a non-empty string or an integer',
  },
  {
    name: "a duplicate document id",
    files: beirFiles({
      "corpus.jsonl": '{"_id": "d1", "text": "x"}\n{"_id": "d1", "text": "y"}\n',
    }),
    load: "corpus",
    message: 'Cannot load corpus "DIR/corpus.jsonl" (line 2): document id "d1" is also on line 1',
  },
  {
    name: "a query with a blank text",
    files: beirFiles({ "queries.jsonl": '{"_id": "q1", "text": " "}\n' }),
    load: "questions",
    message: 'Cannot load questions "DIR/queries.jsonl" (line 1): field "text": must not be blank',
  },
  {
    name: "a qrels file without its header",
    files: beirFiles({ "qrels/test.tsv": "q1\td1\t1\n" }),
    load: "questions",
    message:
      'Cannot load questions "DIR/qrels/test.tsv" (line 1): expected the header "query-id<TAB>corpus-id<TAB>score", got "q1\\td1\\t1"',
  },
  {
    name: "a qrels line with too few fields",
    files: beirFiles({ "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1 d1 1\n" }),
    load: "questions",
    message:
      'Cannot load questions "DIR/qrels/test.tsv" (line 2): expected 3 tab-separated fields (query-id, corpus-id, score), got 1',
  },
  {
    name: "a qrels score that is not an integer",
    files: beirFiles({ "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t0.5\n" }),
    load: "questions",
    message:
      'Cannot load questions "DIR/qrels/test.tsv" (line 2): score "0.5" is not an integer between -1000 and 1000',
  },
  {
    name: "a qrels line naming an unknown query",
    files: beirFiles({ "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq9\td1\t1\n" }),
    load: "questions",
    message:
      'Cannot load questions "DIR/qrels/test.tsv" (line 3): query-id "q9" is not in queries.jsonl',
  },
  {
    name: "a qrels line naming an unknown document",
    files: beirFiles({ "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\tnope\t1\n" }),
    load: "questions",
    message:
      'Cannot load questions "DIR/qrels/test.tsv" (line 2): corpus-id "nope" is not a document of the corpus',
  },
  {
    name: "a pair listed twice",
    files: beirFiles({ "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t2\n" }),
    load: "questions",
    message:
      'Cannot load questions "DIR/qrels/test.tsv" (line 3): the pair q1 / d1 is also on line 2',
  },
];

for (const b of bad) {
  Deno.test(`BEIR: ${b.name} is an error naming the file and line`, async () => {
    await using t = await tempTree(b.files);
    const error = await errorOf(
      b.load === "corpus"
        ? loadBeirCorpus(t.dir)
        : loadBeirQuestions(t.dir, "test", { documentIds: new Set(["d1", "2", "d3"]) }),
    );
    const expected = b.message.replaceAll("DIR", t.dir);
    assert.ok(
      error.message.startsWith(expected),
      `message was:\n${error.message}\nexpected it to start with:\n${expected}`,
    );
  });
}

Deno.test("BEIR: the queries' and the qrels' problems come in one error; a line with a bad field still names its id", async () => {
  await using t = await tempTree(beirFiles({
    "queries.jsonl":
      '{"_id": "q1", "text": " "}\n{"_id": "q2", "text": "b"}\n{"_id": "q2", "text": "c"}\n',
    "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq8\td1\t1\nq2\tnope\t1\n",
  }));
  const error = await errorOf(
    loadBeirQuestions(t.dir, "test", { documentIds: new Set(["d1"]) }),
  );
  assert.deepEqual(
    error.issues.map((i) => [i.position.file.slice(t.dir.length), i.position.line]),
    [
      ["/queries.jsonl", 1],
      ["/queries.jsonl", 3],
      ["/qrels/test.tsv", 3],
      ["/qrels/test.tsv", 4],
    ],
  );
});

Deno.test("BEIR: a corpus error carries the ids its lines did name, and a bad UTF-8 line does not end the check", async () => {
  await using t = await tempTree(beirFiles());
  const encode = (text: string) => new TextEncoder().encode(text);
  await Deno.writeFile(
    t.path("corpus.jsonl"),
    new Uint8Array([
      ...encode('{"_id": "d1", "text": "caf'),
      0xe9,
      ...encode('"}\n{"_id": "d2"}\n{"_id": "d3", "text": "ok"}\n{"_id": "d3", "text": "again"}\n'),
    ]),
  );
  const error = await errorOf(loadBeirCorpus(t.dir));
  assert.deepEqual(error.issues.map((i) => i.position.line), [1, 2, 4]);
  assert.deepEqual([...error.readIds ?? []].sort(), ["d2", "d3"]);
});

Deno.test("BEIR: a file full of bad lines lists the first 20 problems and counts the rest", async () => {
  const lines = Array.from({ length: 25 }, (_, i) => `{"_id": "d${i}"`).join("\n");
  await using t = await tempTree(beirFiles({ "corpus.jsonl": lines }));
  const error = await errorOf(loadBeirCorpus(t.dir));
  assert.equal(error.issues.length, 21);
  assert.equal(error.issues[20].message, "5 more problems not listed");
  assert.equal(join(t.dir, "corpus.jsonl"), error.file);
});

Deno.test("BEIR: invalid UTF-8 in corpus.jsonl is refused with its byte and line, not read as U+FFFD", async () => {
  await using t = await tempTree(beirFiles());
  const good = new TextEncoder().encode('{"_id": "d1", "text": "ok"}\n{"_id": "d2", "text": "caf');
  await Deno.writeFile(
    t.path("corpus.jsonl"),
    new Uint8Array([...good, 0xe9, ...new TextEncoder().encode('"}\n')]),
  );
  const error = await errorOf(loadBeirCorpus(t.dir));
  assert.equal(
    error.message,
    `Cannot load corpus "${
      t.path("corpus.jsonl")
    }" (line 2): it is not valid UTF-8 (byte ${good.length}, line 2); save it as UTF-8`,
  );
});
