/**
 * `--cache replay` needs nothing it will not use: a run whose retriever
 * embeds through an endpoint replays with no network permission and no API
 * key, its vectors read from the embedding cache.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { execCli, ROOT, runCli } from "../support/cli.ts";
import { startFakeEmbeddingsServer } from "../support/fake_embeddings_server.ts";
import { chatCompletion, startFakeOpenAIServer } from "../support/fake_openai_server.ts";
import { tempTree } from "../support/temp.ts";

const RESULTS = "per_question_results.jsonl";
const KEY = "RAGBENCH_TEST_EMBED_KEY";

const CORPUS = JSON.stringify([
  { id: "wing", title: "Wing", text: "Lift on a swept wing grows with the angle of attack." },
  { id: "plate", title: "Plate", text: "Boundary layers on a flat plate thicken downstream." },
  { id: "tower", title: "Tower", text: "The Eiffel Tower is 330 metres tall." },
]);

function questions(third: string): string {
  return `- {id: q1, question: "What makes lift on a swept wing?", answers: [lift]}
- {id: q2, question: "How do boundary layers change on a plate?", answers: [thicken]}
- {id: q3, question: "${third}", answers: ["330"]}
`;
}

function config(chat: string, embeddings: string): string {
  return `name: dense
corpus: corpus.json
questions: questions.yaml
model: {name: test-model, base_url: "${chat}", api_key_env: ${KEY}, max_retries: 0,
  price: {input_per_mtok: 1, output_per_mtok: 2}}
retrievers:
  dense:
    kind: vector
    top_k: 2
    embedding: {model: test-embed, base_url: "${embeddings}", api_key_env: ${KEY},
      max_retries: 0, price_per_mtok: 0.5}
evaluation: {concurrency: 1}
systems:
  - {type: rag, name: rag_dense, retriever: dense}
  - {type: agent_search, name: agent}
`;
}

async function recordedRun() {
  const chat = startFakeOpenAIServer((request) => {
    const body = request.body as { messages: { role: string }[]; tools?: unknown[] };
    if ((body.tools ?? []).length > 0 && !body.messages.some((m) => m.role === "tool")) {
      return {
        json: chatCompletion({
          tool_calls: [{ id: "c1", name: "search", arguments: '{"query": "tower height"}' }],
        }),
      };
    }
    return { json: chatCompletion({ content: "It is 330 metres." }) };
  });
  const embeddings = startFakeEmbeddingsServer();
  const t = await tempTree({
    "corpus.json": CORPUS,
    "questions.yaml": questions("How tall is the Eiffel Tower?"),
    "c.yaml": config(chat.baseUrl, embeddings.baseUrl),
  });
  Deno.env.set(KEY, "sk-test-embed");
  try {
    const live = await runCli([
      "run",
      t.path("c.yaml"),
      "--cache-dir",
      t.path("cache"),
      "--out",
      t.path("live"),
    ]);
    assert.equal(live.code, 0, live.stderr);
  } finally {
    Deno.env.delete(KEY);
  }
  assert.ok(embeddings.requests.length > 0, "the live run embedded through the endpoint");
  return {
    t,
    chat,
    embeddings,
    async [Symbol.asyncDispose]() {
      await t[Symbol.asyncDispose]();
      await chat.close();
      await embeddings.close();
    },
  };
}

const replayArgs = (t: { path(p: string): string }, out: string) => [
  "run",
  t.path("c.yaml"),
  "--cache",
  "replay",
  "--cache-dir",
  t.path("cache"),
  "--out",
  t.path(out),
];

Deno.test("a replay of a run with an embedding endpoint needs no --allow-net and no API key", async () => {
  await using run = await recordedRun();
  const { t, chat, embeddings } = run;
  const sent = { chat: chat.requests.length, embeddings: embeddings.requests.length };

  const printed = await runCli([
    "permissions",
    t.path("c.yaml"),
    "--cache",
    "replay",
    "--cache-dir",
    t.path("cache"),
  ]);
  assert.equal(printed.code, 0, printed.stderr);
  const flags = printed.stdout.split("\n")[1];
  assert.doesNotMatch(flags, /--allow-net/);
  assert.doesNotMatch(flags, /--allow-env/);
  assert.match(flags, /--allow-read=[^ ]*cache/);

  // A real process under explicit flags: read and write only.
  const replayed = await execCli(
    [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`],
    replayArgs(t, "replay"),
  );
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.equal(chat.requests.length, sent.chat, "no model request");
  assert.equal(embeddings.requests.length, sent.embeddings, "no embedding request");
  const lines = await readJsonl(join(t.path("replay"), RESULTS)) as QuestionResult[];
  assert.equal(lines.length, 6);
  for (const line of lines) assert.equal(line.error, null, JSON.stringify(line.error));
  // The same retrievals as the live run.
  const retrievals = async (dir: string) =>
    ((await readJsonl(join(t.path(dir), RESULTS))) as QuestionResult[]).map((l) =>
      JSON.stringify(
        l.steps.map((s) =>
          s.type === "model"
            ? null
            : s.type === "retrieval"
            ? s.results
            : s.type === "tool"
            ? s.result.output
            : null
        ),
      )
    );
  assert.deepEqual(await retrievals("replay"), await retrievals("live"));
});

Deno.test("a replay whose query or passage was never embedded says so and sends nothing", async () => {
  await using run = await recordedRun();
  const { t, chat, embeddings } = run;
  const sent = { chat: chat.requests.length, embeddings: embeddings.requests.length };
  const flags = [`--allow-read=${ROOT},${t.dir}`, `--allow-write=${t.dir}`];

  // A new question: its query vector was never recorded. That question fails; the run exits 1.
  await Deno.writeTextFile(t.path("questions.yaml"), questions("Which tower is 330 metres?"));
  const query = await execCli(flags, [...replayArgs(t, "q"), "--systems", "rag_dense"]);
  assert.equal(query.code, 1, query.stderr);
  assert.match(query.stderr, /replay: 1 call had no usable recording:/);
  assert.match(
    query.stderr,
    /--cache replay: no recorded embedding for this query \(embedding model "test-embed", [^)]*\)\. Record the embeddings first with a live run \(without --cache replay\).* — question "q3" \(system rag_dense, repeat 1\), step 1/,
  );

  // A changed corpus: a passage was never embedded. The run stops before any question.
  await Deno.writeTextFile(
    t.path("corpus.json"),
    CORPUS.replace("330 metres tall", "330 metres tall, antennas included"),
  );
  const passages = await execCli(flags, replayArgs(t, "p"));
  assert.equal(passages.code, 1, passages.stderr);
  assert.match(
    passages.stderr,
    /Cannot build retriever "dense" \(kind vector\): embedding its 3 passages failed\. --cache replay: no recorded embedding for 1 of 3 passages \(embedding model "test-embed"/,
  );
  assert.doesNotMatch(passages.stderr, /Batches embedded before the failure/);
  assert.equal(chat.requests.length, sent.chat);
  assert.equal(embeddings.requests.length, sent.embeddings);
});
