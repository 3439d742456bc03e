import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { createModels } from "../../lib/llm/select.ts";
import { EMPTY_SCRIPT } from "../../lib/llm/mock_script.ts";
import { configPrices } from "../../lib/llm/pricing.ts";
import { modelSchema } from "../../lib/config/schema.ts";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

const EXAMPLE = join(ROOT, "configs/models_example.yaml");

function summaryRows(dir: string): Array<Record<string, string>> {
  return parse(Deno.readTextFileSync(join(dir, "metrics_summary.csv")), { columns: true });
}

Deno.test("models_example --mock: each system's model is named in the summary, the table and every line", async () => {
  await using t = await tempTree();
  const out = join(t.dir, "run");
  const result = await runCli(["run", EXAMPLE, "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const rows = summaryRows(out);
  assert.deepEqual(rows.map((r) => [r.system, r.model]), [
    ["agent_4o_mini", "mock:gpt-4o-mini"],
    ["agent_4o", "mock:gpt-4o"],
  ]);
  assert.ok(
    Number(rows[1].total_cost_usd) > 10 * Number(rows[0].total_cost_usd),
    "gpt-4o is priced from the table, far above gpt-4o-mini",
  );
  assert.match(result.stdout, /^agent_4o_mini\s+15\s.*\smock:gpt-4o-mini$/m);
  assert.match(result.stdout, /^agent_4o\s+15\s.*\smock:gpt-4o$/m);
  assert.match(result.stderr, /models mock:gpt-4o-mini, mock:gpt-4o/);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  assert.equal(lines.length, 30);
  for (const line of lines) {
    assert.equal(line.model, line.system === "agent_4o" ? "mock:gpt-4o" : "mock:gpt-4o-mini");
  }
  const resolved = Deno.readTextFileSync(join(out, "config.resolved.yaml"));
  assert.match(resolved, /id: mock:gpt-4o\n/);
});

const ARENA = `corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
mock_script: mock.yaml
`;
const QUESTIONS =
  `- {id: q1, question: "How tall is the Eiffel Tower?", checks: [{type: contains, value: "330"}]}
`;

Deno.test("a mock script entry keyed by model makes two models of one agent answer differently", async () => {
  await using t = await tempTree({
    "c.yaml": `name: m\n${ARENA}systems:
  - {type: agent_search, name: small}
  - {type: agent_search, name: large, model: {name: gpt-4o}}
`,
    "q.yaml": QUESTIONS,
    "mock.yaml": `"Eiffel Tower":
  models:
    gpt-4o:
      - {call: search, args: {query: Eiffel Tower height}}
      - {answer: "It is 330 metres tall [eiffel_tower]."}
    default:
      - {answer: "About 300 metres, I think."}
`,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out]);
  assert.equal(result.code, 0, result.stderr);
  const lines = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  const by = new Map(lines.map((l) => [l.system, l]));
  assert.equal(by.get("large")!.passed, true);
  assert.equal(by.get("large")!.trajectory.tool_calls, 1);
  assert.equal(by.get("small")!.answer, "About 300 metres, I think.");
  assert.equal(by.get("small")!.trajectory.tool_calls, 0);
});

Deno.test("a mock script naming a model no system uses is an error with its line and a did-you-mean", async () => {
  await using t = await tempTree({
    "c.yaml": `name: m\n${ARENA}systems:\n  - {type: agent_search, model: {name: gpt-4o}}\n`,
    "q.yaml": QUESTIONS,
    "mock.yaml": `"Eiffel Tower":\n  models:\n    gpt-4:\n      - {answer: "330"}\n`,
  });
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", t.path("run")]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /^Cannot load mock script ".*mock\.yaml" \(line 3, column 5\): in "Eiffel Tower": no system of the config uses model "gpt-4" — did you mean "gpt-4o"\?/,
  );
});

Deno.test("every distinct API key variable is checked before any model is built, and all missing ones are named", async () => {
  const a = modelSchema.parse({
    api_key_env: "RAGBENCH_TEST_UNSET_A",
    base_url: "http://127.0.0.1:9/v1",
  });
  const b = { ...a, name: "gpt-4o", api_key_env: "RAGBENCH_TEST_UNSET_B" };
  await assert.rejects(
    createModels([{ name: "x", model: a }, { name: "y", model: b }, { name: "z", model: a }], {
      mock: false,
      script: EMPTY_SCRIPT,
      prices: configPrices(),
    }),
    (error: Error) =>
      /set RAGBENCH_TEST_UNSET_A/.test(error.message) &&
      /set RAGBENCH_TEST_UNSET_B/.test(error.message),
  );
});

Deno.test("systems with equal model configs share one Model; a differing one gets its own", async () => {
  const a = modelSchema.parse({ api_key_env: null, base_url: "http://127.0.0.1:9/v1" });
  const models = await createModels(
    [{ name: "x", model: a }, { name: "y", model: { ...a } }, {
      name: "z",
      model: { ...a, temperature: 1 },
    }],
    { mock: false, script: EMPTY_SCRIPT, prices: configPrices() },
  );
  assert.equal(models.get("x"), models.get("y"));
  assert.notEqual(models.get("x"), models.get("z"));
  assert.equal(models.get("z")!.id, "openai:gpt-4o-mini");
});

Deno.test("permissions cover every model host and API key variable a config names", async () => {
  await using t = await tempTree({
    "c.yaml": `name: t
corpus: corpus.json
questions: q.yaml
model: {name: gpt-4o-mini, api_key_env: MAIN_KEY}
systems:
  - {type: closed_book}
  - {type: agent_search, model: {name: llama3, base_url: "http://localhost:11434/v1", api_key_env: LOCAL_KEY}}
  - {type: agent_search, name: keyless, model: {base_url: "http://10.0.0.2:8000/v1", api_key_env: null}}
`,
  });
  const result = await runCli([
    "permissions",
    t.path("c.yaml"),
    "--out",
    t.path("out"),
    "--cache",
    "off",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const flags = result.stdout.split("\n")[1];
  assert.match(flags, / --allow-env=MAIN_KEY,LOCAL_KEY /);
  assert.match(flags, / --allow-net=api\.openai\.com:443,localhost:11434,10\.0\.0\.2:8000$/);
  assert.match(result.stdout, /system agent_search's model API key/);
});

Deno.test("a mock script whose instead_of names no tool of the config is an error with a did-you-mean", async () => {
  await using t = await tempTree({
    "c.yaml": `name: m\n${ARENA}systems:\n  - {type: grep_agent}\n`,
    "q.yaml": QUESTIONS,
    "mock.yaml":
      `"Eiffel Tower":\n  - {call: corpus_grep, args: {pattern: Eiffel}, instead_of: serch}\n  - {answer: "330"}\n`,
  });
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", t.path("run")]);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /^Cannot load mock script ".*mock\.yaml" \(line 2, column 62\): in "Eiffel Tower": instead_of names "serch", which is not a tool of this config — did you mean "search"\?/,
  );
});

Deno.test("validate names each distinct model and the systems that use it", async () => {
  const result = await runCli(["validate", EXAMPLE]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /models: +gpt-4o-mini \(agent_4o_mini\); gpt-4o \(agent_4o\)\n/);
});

Deno.test("--systems needs only the chosen systems' model hosts and keys", async () => {
  await using server = startFakeOpenAIServer(() => ({ json: chatCompletion({ content: "330" }) }));
  await using t = await tempTree({
    "c.yaml": `name: m
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
model: {name: local, base_url: "${server.baseUrl}", api_key_env: null, max_retries: 0}
systems:
  - {type: closed_book, name: here}
  - {type: closed_book, name: elsewhere, model: {base_url: "http://10.255.255.1:8000/v1", api_key_env: RAGBENCH_TEST_UNSET_KEY}}
`,
    "q.yaml": QUESTIONS,
  });
  // This test process may reach only 127.0.0.1: the other system's host would be refused.
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--systems",
    "here",
    "--out",
    t.path("run"),
    "--cache",
    "off",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const all = await runCli(["run", t.path("c.yaml"), "--out", t.path("run2"), "--cache", "off"]);
  assert.equal(all.code, 2);
  assert.match(
    all.stderr,
    /--allow-net=10\.255\.255\.1:8000 +\(the system elsewhere's model API\)/,
  );
});
