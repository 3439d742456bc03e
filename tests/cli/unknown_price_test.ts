/**
 * An unknown price is unknown, never $0: a model (and an embedding model) the
 * price catalog does not know, served by a loopback endpoint.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { PRICE_CATALOG } from "../../lib/llm/price_catalog.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { startFakeEmbeddingsServer } from "../support/fake_embeddings_server.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";

function server() {
  return startFakeOpenAIServer(() => ({
    json: chatCompletion({
      content: "It is 330 metres.",
      usage: { prompt_tokens: 100, completion_tokens: 5 },
    }),
  }));
}

function config(baseUrl: string, options: { price?: string; evaluation?: string } = {}): string {
  return `name: unpriced
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: house-model-7b, base_url: "${baseUrl}", api_key_env: null, max_retries: 0${
    options.price ? `, price: ${options.price}` : ""
  }}
evaluation: {concurrency: 1${options.evaluation ? `, ${options.evaluation}` : ""}}
systems:
  - {type: closed_book, name: closed_book}
`;
}

const WARNING =
  /warning: no price is known for model "house-model-7b" at http:\/\/127\.0\.0\.1:\d+\/v1 \(systems closed_book; not in the config nor in the price catalog @pydantic\/genai-prices@[0-9.]+\), so its cost is unknown: cost columns stay empty \(never \$0\) and the console shows "\?"\. Give it as model\.price: \{input_per_mtok: N, output_per_mtok: N\}/;

Deno.test("a model with no known price: warned, its cost empty everywhere (never 0), '?' in the console", async () => {
  await using fake = server();
  await using t = await tempTree({ "c.yaml": config(fake.baseUrl) });
  const out = t.path("run");
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--out",
    out,
    "--limit",
    "2",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(fake.requests.length, 2);
  assert.match(result.stderr, WARNING);
  assert.match(
    result.stderr,
    /closed_book \(openai:house-model-7b\): 1 model call a question, cost unknown \(no price for its model\)/,
  );
  assert.match(result.stderr, /estimated cost: unknown \(no system's model has a known price\)/);

  // JSONL: the line's and the step's cost are null.
  const lines = await readJsonl(join(out, RESULTS)) as QuestionResult[];
  for (const line of lines) {
    assert.equal(line.cost_usd, null);
    assert.equal(line.steps[0].type === "model" && line.steps[0].cost_usd, null);
    assert.deepEqual(line.usage, { input_tokens: 100, output_tokens: 5 });
  }
  // CSV: empty cells.
  const [row] = parse(Deno.readTextFileSync(join(out, "metrics_summary.csv")), {
    columns: true,
  }) as Record<string, string>[];
  assert.equal(row.total_cost_usd, "");
  assert.equal(row.cost_per_question, "");
  // The console table: "?", and a note saying why.
  const table = result.stdout.split("\n");
  const header = table[0].split(/\s{2,}/);
  const cells = table[2].split(/\s{2,}/);
  assert.equal(cells[header.indexOf("$/question")], "?");
  assert.match(result.stdout, /Cost unknown for closed_book \(openai:house-model-7b\)/);
  // recommendation.json, summary.md, report.html.
  const rec = JSON.parse(Deno.readTextFileSync(join(out, "recommendation.json")));
  assert.equal(rec.best.cost_per_question, null);
  const md = Deno.readTextFileSync(join(out, "summary.md"));
  assert.match(md, /\| closed_book \| openai:house-model-7b \| 2 \| [^|]+ \| [^|]+ \| {2}\|/);
  assert.match(md, /_Cost unknown for closed_book/);
  assert.doesNotMatch(md, /\$0\.0|\$0 /);
  const html = Deno.readTextFileSync(join(out, "report.html"));
  assert.match(html, /<p class="note cost-note">Cost unknown for closed_book/);
  // The systems table's $/question cell, and the folded metrics table's cost cells, are empty.
  assert.match(html, /<\/small><\/td><td class="num"><\/td><td class="num">[0-9.]+<\/td>/);
  // total_cost_usd and cost_per_question in the folded metrics table.
  assert.match(html, /<td class="num">[0-9.]+<\/td><td><\/td><td><\/td><td class="num">/);
  // run.json: the catalog consulted, and where the price came from.
  const manifest = JSON.parse(Deno.readTextFileSync(join(out, "run.json")));
  assert.equal(manifest.prices.catalog, PRICE_CATALOG);
  assert.deepEqual(manifest.prices.models, [{
    model: "house-model-7b",
    base_url: fake.baseUrl,
    systems: ["closed_book"],
    input_per_mtok: null,
    output_per_mtok: null,
    source: "unknown",
    catalog_entry: null,
  }]);
  assert.equal(manifest.model.applied_price, null);

  // `ragbench report` says the same.
  const again = await runCli(["report", out]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Cost unknown for closed_book/);
  const [rewritten] = parse(Deno.readTextFileSync(join(out, "metrics_summary.csv")), {
    columns: true,
  }) as Record<string, string>[];
  assert.equal(rewritten.cost_per_question, "");
});

Deno.test("validate warns naming the model and the price: key", async () => {
  await using t = await tempTree({ "c.yaml": config("http://127.0.0.1:9/v1") });
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, WARNING);
  assert.match(result.stdout, /prices: {4}house-model-7b unknown/);

  // A system's own model is named with where its price goes.
  await Deno.writeTextFile(
    t.path("own.yaml"),
    config("http://127.0.0.1:9/v1", { price: "{input_per_mtok: 1, output_per_mtok: 1}" }) +
      "  - {type: closed_book, name: other, model: {name: house-model-13b}}\n",
  );
  const own = await runCli(["validate", t.path("own.yaml")]);
  assert.equal(own.code, 0, own.stderr);
  assert.match(
    own.stderr,
    /no price is known for model "house-model-13b" at http:\/\/127\.0\.0\.1:9\/v1 \(systems other;.*Give it as model: \{price: \{input_per_mtok: N, output_per_mtok: N\}\} in system other /,
  );
  assert.doesNotMatch(own.stderr, /"house-model-7b"/);
  assert.match(own.stdout, /house-model-7b \$1 in \/ \$1 out \(config\); house-model-13b unknown/);
});

Deno.test("with evaluation.max_cost_usd a live run is refused (exit 2, nothing sent) until a price is given; --mock is not", async () => {
  await using fake = server();
  await using t = await tempTree({
    "c.yaml": config(fake.baseUrl, { evaluation: "max_cost_usd: 5" }),
    "priced.yaml": config(fake.baseUrl, {
      evaluation: "max_cost_usd: 5",
      price: "{input_per_mtok: 0, output_per_mtok: 0}",
    }),
  });
  const common = ["--cache", "off", "--limit", "1"];
  const refused = await runCli(["run", t.path("c.yaml"), "--out", t.path("a"), ...common]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /Not starting the run: no price is known for model "house-model-7b" \(systems closed_book\), so evaluation\.max_cost_usd \(5\) could never count its cost\. Give it as model\.price: \{input_per_mtok: N, output_per_mtok: N\}/,
  );
  assert.equal(fake.requests.length, 0);
  assert.throws(() => Deno.statSync(t.path("a")), Deno.errors.NotFound);

  const mock = await runCli(["run", t.path("c.yaml"), "--mock", "--out", t.path("m"), ...common]);
  assert.equal(mock.code, 0, mock.stderr);

  const priced = await runCli(["run", t.path("priced.yaml"), "--out", t.path("b"), ...common]);
  assert.equal(priced.code, 0, priced.stderr);
  assert.equal(fake.requests.length, 1);
  const [line] = await readJsonl(join(t.path("b"), RESULTS)) as QuestionResult[];
  assert.equal(line.cost_usd, 0, "a price of 0 is a known $0");
  const manifest = JSON.parse(Deno.readTextFileSync(join(t.path("b"), "run.json")));
  assert.equal(manifest.prices.models[0].source, "config");
});

Deno.test("a system's own max_cost_usd with an unknown price refuses a live run too", async () => {
  await using t = await tempTree({
    "c.yaml": config("http://127.0.0.1:9/v1").replace(
      "  - {type: closed_book, name: closed_book}",
      "  - {type: agent_search, name: agent, max_cost_usd: 0.01}",
    ),
  });
  const refused = await runCli(["run", t.path("c.yaml"), "--cache", "off", "--out", t.path("a")]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /so system agent's max_cost_usd could never count its cost/);
});

Deno.test("an embedding model with no known price: its retrievals cost null, and the warning names price_per_mtok", async () => {
  await using fake = server();
  await using embeddings = startFakeEmbeddingsServer();
  await using t = await tempTree({
    "c.yaml": `name: dense
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: m, base_url: "${fake.baseUrl}", api_key_env: null, max_retries: 0,
  price: {input_per_mtok: 1, output_per_mtok: 2}}
retrievers:
  dense:
    kind: vector
    embedding: {model: house-embed, base_url: "${embeddings.baseUrl}", api_key_env: null,
      max_retries: 0}
evaluation: {concurrency: 1}
systems:
  - {type: rag, name: rag_dense, retriever: dense}
`,
  });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--cache-dir",
    t.path("cache"),
    "--out",
    t.path("run"),
    "--limit",
    "1",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /warning: no price is known for embedding model "house-embed" at http:\/\/127\.0\.0\.1:\d+\/v1 \(systems rag_dense;.*Give it as retrievers\.dense\.embedding\.price_per_mtok: N/,
  );
  assert.match(
    result.stderr,
    /passages embedded with .* cost unknown: no price for the embedding model\)/,
  );
  const [line] = await readJsonl(join(t.path("run"), RESULTS)) as QuestionResult[];
  const retrieval = line.steps.find((s) => s.type === "retrieval")!;
  assert.equal(retrieval.type === "retrieval" && retrieval.cost_usd, null);
  assert.equal(line.cost_usd, null);
  const manifest = JSON.parse(Deno.readTextFileSync(join(t.path("run"), "run.json")));
  assert.equal(manifest.prices.embeddings[0].source, "unknown");
  assert.equal(manifest.sessions[0].indexing[0].cost_usd, null);
});

Deno.test("--mock dollars are called simulated in the console, summary.md and report.html", async () => {
  await using t = await tempTree();
  const out = t.path("run");
  const result = await runCli([
    "run",
    join(ROOT, "configs/rag.yaml"),
    "--mock",
    "--out",
    out,
    "--limit",
    "2",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const simulated = /Dollar figures are simulated \(--mock\)/;
  assert.match(result.stderr, /estimated cost, simulated \(--mock spends nothing\): \$/);
  assert.match(result.stderr, /· \$[0-9.]+ simulated ·/);
  assert.match(result.stdout, simulated);
  assert.match(Deno.readTextFileSync(join(out, "summary.md")), simulated);
  assert.match(Deno.readTextFileSync(join(out, "report.html")), simulated);
  const manifest = JSON.parse(Deno.readTextFileSync(join(out, "run.json")));
  assert.equal(manifest.prices.simulated, true);
  assert.equal(manifest.prices.models[0].catalog_entry, "openai/gpt-4o-mini");
});

Deno.test("a system that calls no model (retrieval_only) needs no model price: no warning, no refusal", async () => {
  await using t = await tempTree({
    "c.yaml": config("http://127.0.0.1:9/v1", { evaluation: "max_cost_usd: 1" }).replace(
      "  - {type: closed_book, name: closed_book}",
      "  - {type: retrieval_only, name: bm25_only}",
    ),
  });
  const result = await runCli([
    "run",
    t.path("c.yaml"),
    "--cache",
    "off",
    "--out",
    t.path("run"),
    "--limit",
    "2",
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /no price is known/);
  assert.match(result.stderr, /^ {2}bm25_only: no model call$/m);
  const [row] = parse(Deno.readTextFileSync(join(t.path("run"), "metrics_summary.csv")), {
    columns: true,
  }) as Record<string, string>[];
  assert.equal(row.cost_per_question, "0");
});
