import assert from "node:assert/strict";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import type { Config } from "../../../lib/config/types.ts";
import { ConfigError } from "../../../lib/errors.ts";

const WHERE = { file: "all.yaml", absolute: "/project/configs/all.yaml" };

function load(text: string): Config {
  return parseConfig(text, WHERE, REGISTRIES);
}

const BASE = `name: t
corpus: ../arenas/rag/corpus.json
questions: q.yaml
`;

Deno.test("config: defaults are filled in and relative paths resolve against the config file", () => {
  const config = load(
    `${BASE}systems:\n  - {type: closed_book}\n  - {type: agent_search, name: agent, tools: [calculator, {name: corpus_grep, max_results: 10}]}\n`,
  );
  assert.deepEqual(config.corpus, ["/project/arenas/rag/corpus.json"]);
  assert.deepEqual(config.questions, ["/project/configs/q.yaml"]);
  assert.deepEqual(config.mock_script, []);
  assert.equal(config.model.name, "gpt-4o-mini");
  assert.equal(config.model.api_key_env, "OPENAI_API_KEY");
  assert.deepEqual(config.evaluation, {
    tools_now: "2026-01-01",
    concurrency: 4,
    repeats: 1,
    max_cost_usd: null,
    question_timeout_s: 300,
    retrieval_k: [1, 5, 10, 100],
  });
  assert.deepEqual(config.tools, {
    allow: [],
    allow_network: false,
    timeout_s: 10,
    max_output_chars: 12_000,
    plugins: [],
  });
  assert.deepEqual(config.systems.map((s) => s.name), ["closed_book", "agent"]);
  assert.equal(config.systems[1].options.max_steps, 8);
  assert.deepEqual(config.systems[1].tools, [
    { kind: "builtin", name: "calculator", options: {} },
    { kind: "builtin", name: "corpus_grep", options: { max_results: 10 } },
  ]);
});

const failures: Array<{ name: string; text: string; message: string }> = [
  {
    name: "an unknown top-level key",
    text: `${BASE}evalution: {}\nsystems: [{type: closed_book}]\n`,
    message:
      'Cannot load config "all.yaml" (line 4, column 1): unknown key "evalution" — did you mean "evaluation"?',
  },
  {
    name: "an unknown nested key",
    text: `${BASE}evaluation: {concurency: 2}\nsystems: [{type: closed_book}]\n`,
    message:
      'Cannot load config "all.yaml" (line 4, column 14): unknown key "concurency" in evaluation — did you mean "concurrency"?',
  },
  {
    name: "an unknown system type",
    text: `${BASE}systems:\n  - {type: agent_serch}\n`,
    message:
      'Cannot load config "all.yaml" (line 5, column 12): unknown system type "agent_serch" — did you mean "agent_search"?',
  },
  {
    name: "a tools list on a system that takes none",
    text: `${BASE}systems:\n  - {type: closed_book, tools: [calculator]}\n`,
    message:
      'Cannot load config "all.yaml" (line 5, column 25): system type "closed_book" takes no tools — remove its tools: list, or use a system that accepts tools (agent_search, code_agent, custom, ai_sdk, langgraph, openai_agents, mastra, llamaindex)',
  },
  {
    name: "an unknown tool name",
    text: `${BASE}systems:\n  - type: agent_search\n    tools: [calculater]\n`,
    message:
      'Cannot load config "all.yaml" (line 6, column 13): unknown tool "calculater" — did you mean "calculator"?',
  },
  {
    name: "an unknown system option",
    text: `${BASE}systems:\n  - type: agent_search\n    max_step: 3\n`,
    message:
      'Cannot load config "all.yaml" (line 6, column 5): unknown key "max_step" in systems[0] — did you mean "max_steps"?',
  },
  {
    name: "an unknown tool option",
    text:
      `${BASE}systems:\n  - type: agent_search\n    tools: [{name: corpus_grep, max_result: 5}]\n`,
    message:
      'Cannot load config "all.yaml" (line 6, column 33): unknown key "max_result" in systems[0].tools[0] — did you mean "max_results"?',
  },
  {
    name: "an option given to a tool that takes none",
    text:
      `${BASE}systems:\n  - type: agent_search\n    tools: [{name: calculator, precision: 5}]\n`,
    message:
      'Cannot load config "all.yaml" (line 6, column 32): tool "calculator" takes no options (found "precision")',
  },
  {
    name: "a wrongly typed value",
    text: `${BASE}evaluation: {concurrency: many}\nsystems: [{type: closed_book}]\n`,
    message:
      'Cannot load config "all.yaml" (line 4, column 27): evaluation.concurrency: must be a number',
  },
  {
    name: "a missing required key",
    text: `name: t\ncorpus: c.json\nsystems: [{type: closed_book}]\n`,
    message: 'Cannot load config "all.yaml" (line 1, column 1): questions: is required',
  },
  {
    name: "an impossible tools_now date",
    text: `${BASE}evaluation: {tools_now: 2026-02-30}\nsystems: [{type: closed_book}]\n`,
    message:
      'Cannot load config "all.yaml" (line 4, column 25): evaluation.tools_now: must be a date written YYYY-MM-DD',
  },
  {
    name: "two systems with one name",
    text: `${BASE}systems:\n  - {type: agent_search}\n  - {type: agent_search}\n`,
    message:
      'Cannot load config "all.yaml" (line 6, column 5): two systems are named "agent_search" (systems[0] and systems[1]) — give each system a distinct name:',
  },
  {
    name: "a tool listed twice",
    text: `${BASE}systems:\n  - {type: agent_search, tools: [calculator, calculator]}\n`,
    message:
      'Cannot load config "all.yaml" (line 5, column 46): tool "calculator" is listed twice in systems[0].tools',
  },
  {
    name: "an allow list naming an unknown tool",
    text: `${BASE}tools: {allow: [web_serch]}\nsystems: [{type: closed_book}]\n`,
    message:
      'Cannot load config "all.yaml" (line 4, column 17): tools.allow names "web_serch", which is neither a built-in nor a custom or plug-in tool of this config',
  },
  {
    name: "a YAML syntax error",
    text: `${BASE}systems: [{type: closed_book}\n`,
    message: 'Cannot load config "all.yaml" (line 5, column 1): YAML syntax error:',
  },
  {
    name: "a file that is not a mapping",
    text: `- a\n- b\n`,
    message:
      'Cannot load config "all.yaml" (line 1): the file must be a mapping with name, corpus, questions and systems',
  },
];

for (const f of failures) {
  Deno.test(`config: ${f.name} is an error with file:line`, () => {
    const error = (() => {
      try {
        load(f.text);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    assert.ok(error.message.startsWith(f.message), `message was:\n${error.message}`);
    assert.equal(error.file, "all.yaml");
    assert.ok(typeof error.line === "number");
  });
}

Deno.test("config: corpus, questions and mock_script may each be a list of paths", () => {
  const config = load(`name: t
corpus: [../a/corpus.json, /abs/b]
questions: [qa.yaml, qb.yaml]
mock_script: [m.yaml]
systems: [{type: closed_book}]
`);
  assert.deepEqual(config.corpus, ["/project/a/corpus.json", "/abs/b"]);
  assert.deepEqual(config.questions, ["/project/configs/qa.yaml", "/project/configs/qb.yaml"]);
  assert.deepEqual(config.mock_script, ["/project/configs/m.yaml"]);
});

Deno.test("config: every problem is reported at once", () => {
  const error = (() => {
    try {
      load(
        `${BASE}systems:\n  - {type: closed_boook}\n  - {type: agent_search, tools: [calculater]}\n`,
      );
    } catch (e) {
      return e as ConfigError;
    }
  })();
  assert.ok(error instanceof ConfigError);
  assert.equal(error.issues.length, 2);
  assert.deepEqual(error.issues.map((i) => i.position.line), [5, 6]);
});

Deno.test("config: BEIR sources for corpus and questions resolve against the config file", () => {
  const config = load(`name: t
corpus: {beir: ../data/cranfield}
questions: [q.yaml, {beir: ../data/cranfield, split: dev}, {beir: /abs/scifact}]
evaluation: {retrieval_k: [10, 100]}
systems:
  - {type: closed_book}
`);
  assert.deepEqual(config.corpus, [{ beir: "/project/data/cranfield" }]);
  assert.deepEqual(config.questions, [
    "/project/configs/q.yaml",
    { beir: "/project/data/cranfield", split: "dev" },
    { beir: "/abs/scifact", split: "test" },
  ]);
  assert.deepEqual(config.evaluation.retrieval_k, [10, 100]);
});

for (
  const [name, text, message] of [
    [
      "a misspelt BEIR key",
      "questions: {beir: x, splt: test}",
      'Cannot load config "all.yaml" (line 3, column 22): unknown key "splt" in questions — did you mean "split"?',
    ],
    [
      "a split that is a path",
      "questions: {beir: x, split: ../train}",
      'Cannot load config "all.yaml" (line 3, column 29): questions.split: use letters, digits, _, . and - (the file qrels/<split>.tsv)',
    ],
    [
      "a repeated retrieval cut-off",
      "questions: q.yaml\nevaluation: {retrieval_k: [5, 5]}",
      'Cannot load config "all.yaml" (line 4, column 27): evaluation.retrieval_k: list each cut-off once',
    ],
  ]
) {
  Deno.test(`config: ${name} is an error with its line`, () => {
    const error = (() => {
      try {
        load(`name: t\ncorpus: {beir: x}\n${text}\nsystems:\n  - {type: closed_book}\n`);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.message, message);
  });
}

Deno.test("config: every problem of every system is reported in one pass", () => {
  const error = (() => {
    try {
      load(
        `${BASE}evalution: {}\nsystems:\n` +
          "  - {type: agent_search, name: a, max_stepz: 3, tools: [calculater, {name: corpus_grep, max_resultz: 3}]}\n" +
          "  - {type: closed_book, name: a, tools: [calculator], temprature: 1}\n" +
          "  - {type: agnet_search, tools: [serch, {name: web_fetch, max_chars: -1}]}\n",
      );
    } catch (e) {
      return e as ConfigError;
    }
  })();
  assert.ok(error instanceof ConfigError);
  assert.deepEqual(error.message.split("\n"), [
    'Cannot load config "all.yaml" (line 4, column 1): unknown key "evalution" — did you mean "evaluation"?',
    'Cannot load config "all.yaml" (line 6, column 35): unknown key "max_stepz" in systems[0] — did you mean "max_steps"?',
    'Cannot load config "all.yaml" (line 6, column 57): unknown tool "calculater" — did you mean "calculator"?',
    'Cannot load config "all.yaml" (line 6, column 89): unknown key "max_resultz" in systems[0].tools[1] — did you mean "max_results"?',
    'Cannot load config "all.yaml" (line 7, column 31): two systems are named "a" (systems[0] and systems[1]) — give each system a distinct name:',
    'Cannot load config "all.yaml" (line 7, column 34): system type "closed_book" takes no tools — remove its tools: list, or use a system that accepts tools (agent_search, code_agent, custom, ai_sdk, langgraph, openai_agents, mastra, llamaindex)',
    'Cannot load config "all.yaml" (line 7, column 55): unknown key "temprature" in systems[1] — expected one of "type", "name", "description", "model", "prompts"',
    'Cannot load config "all.yaml" (line 8, column 12): unknown system type "agnet_search" — did you mean "agent_search"?',
    'Cannot load config "all.yaml" (line 8, column 34): unknown tool "serch" — did you mean "search"?',
    'Cannot load config "all.yaml" (line 8, column 48): unknown tool "web_fetch" — expected one of "calculator", "list_documents", "read_document", "corpus_grep", "lookup_table", "date_calc", "search"',
  ]);
});

Deno.test('config: a "__proto__" key in a system or tool entry is an unknown key, not dropped', () => {
  const error = (() => {
    try {
      load(
        `${BASE}systems:\n  - {type: closed_book, __proto__: 1}\n` +
          "  - {type: agent_search, tools: [{name: corpus_grep, __proto__: {max_results: 1}}]}\n",
      );
    } catch (e) {
      return e as ConfigError;
    }
  })();
  assert.ok(error instanceof ConfigError);
  assert.deepEqual(error.message.split("\n"), [
    'Cannot load config "all.yaml" (line 5, column 25): unknown key "__proto__" in systems[0] — expected one of "type", "name", "description", "model", "prompts"',
    'Cannot load config "all.yaml" (line 6, column 54): unknown key "__proto__" in systems[1].tools[0] — expected one of "max_results"',
  ]);
});

Deno.test("config: a corpus may be {path, on_error}; on_error is stop or skip, stop by default", () => {
  const config = load(`name: t
corpus: [{path: docs, on_error: skip}, {path: /abs/more}, plain.json]
questions: q.yaml
systems: [{type: closed_book}]
`);
  assert.deepEqual(config.corpus, [
    { path: "/project/configs/docs", on_error: "skip" },
    { path: "/abs/more", on_error: "stop" },
    "/project/configs/plain.json",
  ]);
  const error = (() => {
    try {
      load(
        `name: t\ncorpus: {path: docs, on_error: ignore}\nquestions: q.yaml\nsystems: [{type: closed_book}]\n`,
      );
    } catch (e) {
      return e as ConfigError;
    }
  })();
  assert.ok(error instanceof ConfigError);
  assert.match(error.message, /line 2/);
});
