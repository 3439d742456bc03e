import assert from "node:assert/strict";
import { openResponseCache } from "../../lib/cache/response_cache.ts";
import { emptyCacheStats } from "../../lib/llm/cached_model.ts";
import { TraceRecorder } from "../../lib/trace/trace_recorder.ts";
import type { ModelStep, RetrievalStep } from "../../lib/types.ts";
import { http } from "../../systems/http.ts";
import {
  type ResponseCacheSetup,
  SystemFailedError,
  type SystemStartEnv,
} from "../../systems/system.ts";
import { modelOf, question, toolboxOf } from "../support/fixtures.ts";
import { hang, startRagService } from "../support/rag_service.ts";
import { tempTree } from "../support/temp.ts";

const DOCS = new Set(["eiffel", "tokyo", "burj"]);
const TOKEN = "tok-Sup3rSecret-42";
Deno.env.set("RB_SERVICE_TOKEN", TOKEN);

const GOOD = {
  answer: "330 metres [eiffel]",
  hits: [
    { id: "eiffel", body: "The Eiffel Tower is 330 m tall.", s: 0.9 },
    { id: "tokyo", body: "Tokyo Tower is 333 m.", s: 0.4 },
  ],
  usage: { in: 120, out: 8 },
  cost: 0.0004,
};

/** Options of an http system at `origin`, mapping {@link GOOD}'s shape. */
function optionsAt(origin: string, extra: Record<string, unknown> = {}) {
  return http.options.parse({
    type: "http",
    url: `${origin}/ask`,
    request: { q: "{{question}}", id: "{{question_id}}", n: "{{repeat}}" },
    response: {
      answer: "$.answer",
      contexts: "$.hits",
      doc_id: "$.id",
      text: "$.body",
      score: "$.s",
      input_tokens: "$.usage.in",
      output_tokens: "$.usage.out",
      cost_usd: "$.cost",
    },
    timeout_s: 5,
    max_retries: 0,
    ...extra,
  });
}

/** Runs one question through a started http system; returns the recorder and the outcome or error. */
async function ask(
  options: ReturnType<typeof optionsAt>,
  env: Partial<SystemStartEnv> = {},
  signal = new AbortController().signal,
) {
  const instance = http.start!(options, { name: "svc", documentIds: DOCS, ...env });
  await instance.ready;
  const recorder = new TraceRecorder(modelOf(() => ({ content: "never asked" })));
  try {
    const outcome = await instance.run(options, {
      question: question("q1", "How tall is the Eiffel Tower?"),
      recorder,
      tools: toolboxOf([]).session("q1"),
      retriever: null,
      signal,
    });
    return { recorder, outcome, error: null };
  } catch (error) {
    return { recorder, outcome: null, error: error as Error };
  } finally {
    await instance.close();
  }
}

Deno.test("http POSTs the filled request and records the answer, contexts, usage and cost", async () => {
  await using service = startRagService(() => Response.json(GOOD));
  const { recorder, outcome, error } = await ask(optionsAt(service.origin));
  assert.equal(error, null);
  assert.equal(outcome?.answer, "330 metres [eiffel]");
  assert.deepEqual(service.requests[0].body, {
    q: "How tall is the Eiffel Tower?",
    id: "q1",
    n: 1,
  });
  const [retrieval, model] = recorder.steps as [RetrievalStep, ModelStep];
  assert.equal(retrieval.type, "retrieval");
  assert.deepEqual(retrieval.results, [
    { doc_id: "eiffel", passage_id: "eiffel", score: 0.9, text: "The Eiffel Tower is 330 m tall." },
    { doc_id: "tokyo", passage_id: "tokyo", score: 0.4, text: "Tokyo Tower is 333 m." },
  ]);
  assert.equal(model.type, "model");
  assert.equal(model.content, "330 metres [eiffel]");
  assert.deepEqual(model.usage, { input_tokens: 120, output_tokens: 8 });
  assert.equal(model.cost_usd, 0.0004);
  assert.equal(model.service, `${service.origin}/ask`);
  assert.equal(model.retries, 0);
  assert.deepEqual(recorder.usage, { input_tokens: 120, output_tokens: 8 });
  assert.equal(recorder.costUsd, 0.0004);
});

Deno.test("http without cost or usage paths records an unknown cost, never $0", async () => {
  await using service = startRagService(() => Response.json({ answer: "x" }));
  const { recorder, error } = await ask(http.options.parse({
    type: "http",
    url: `${service.origin}/ask`,
  }));
  assert.equal(error, null);
  assert.equal(recorder.steps.length, 1, "no contexts path: no retrieval step");
  assert.equal(recorder.costUsd, null);
  assert.deepEqual(service.requests[0].body, { question: "How tall is the Eiffel Tower?" });
});

async function failure(
  handler: Parameters<typeof startRagService>[0],
  extra: Record<string, unknown> = {},
  env: Partial<SystemStartEnv> = {},
): Promise<SystemFailedError> {
  await using service = startRagService(handler);
  const { error } = await ask(optionsAt(service.origin, extra), env);
  assert.ok(error instanceof SystemFailedError, `expected a system failure, got ${error}`);
  assert.match(error.message, /^System "svc" \(http\) at http:\/\/127\.0\.0\.1:\d+\/ask: /);
  return error;
}

Deno.test("http: a body over max_response_mb is the question's error, not a crash", async () => {
  const huge = JSON.stringify({ answer: "x".repeat(3 * 1_048_576) });
  const error = await failure(
    () => new Response(huge, { headers: { "content-type": "application/json" } }),
    { max_response_mb: 1 },
  );
  assert.match(error.message, /sent a reply over 1 MB/);
});

Deno.test("http: a body streamed past the cap without a length is cut off", async () => {
  const chunk = new TextEncoder().encode("x".repeat(65_536));
  let sent = 0;
  const error = await failure(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          if (sent++ > 200) controller.close(); // 13 MB at most
          else controller.enqueue(chunk);
        },
      }),
    ), { max_response_mb: 1 });
  assert.match(error.message, /sent a reply over 1 MB/);
  assert.ok(sent < 200, `read ${sent} chunks: the stream was not cut at the cap`);
});

Deno.test("http: malformed JSON is the question's error quoting its start", async () => {
  const error = await failure(() => new Response("{answer: oops"));
  assert.match(error.message, /sent a reply that is not JSON .*it starts "\{answer: oops"/);
});

Deno.test("http: a missing answer path names the path and what was found", async () => {
  const error = await failure(() => Response.json({ reply: "x", hits: [] }));
  assert.match(error.message, /sent no answer at \$\.answer \(found nothing; expected a string\)/);
});

Deno.test("http: an answer that is not a string is an error; null is no answer", async () => {
  const error = await failure(() => Response.json({ ...GOOD, answer: 330 }));
  assert.match(error.message, /no answer at \$\.answer \(found a number; expected a string\)/);
  await using service = startRagService(() => Response.json({ ...GOOD, answer: null }));
  const { outcome, error: none } = await ask(optionsAt(service.origin));
  assert.equal(none, null);
  assert.equal(outcome?.answer, null);
});

Deno.test("http: contexts that are not a list, or lack an id or a numeric score, are errors", async () => {
  let error = await failure(() => Response.json({ ...GOOD, hits: { id: "eiffel" } }));
  assert.match(error.message, /sent no list of contexts at \$\.hits \(found an object\)/);
  error = await failure(() => Response.json({ ...GOOD, hits: [{ body: "no id", s: 1 }] }));
  assert.match(error.message, /context 1 with no doc_id at \$\.id \(found nothing/);
  error = await failure(() =>
    Response.json({ ...GOOD, hits: [{ id: "eiffel", body: "", s: "1" }] })
  );
  assert.match(
    error.message,
    /context 1 with no score at \$\.s \(found a string; expected a finite/,
  );
  error = await failure(() => Response.json({ ...GOOD, usage: { in: -3, out: 1 } }));
  assert.match(error.message, /a number as its input tokens at \$\.usage\.in/);
});

Deno.test("http: a context id that is not in the corpus fails the question, naming it", async () => {
  const error = await failure(() =>
    Response.json({ ...GOOD, hits: [GOOD.hits[0], { id: "eiffel.md", body: "", s: 0.1 }] })
  );
  assert.match(
    error.message,
    /returned document id "eiffel\.md" \(context 2\), which is not one of the corpus's 3 documents/,
  );
});

Deno.test("http: a service that never answers times out per attempt, retries, then fails", async () => {
  const error = await failure(
    (_r, _i, signal) => hang(signal),
    { timeout_s: 0.2, max_retries: 1 },
  );
  assert.match(error.message, /did not answer within 0\.2 s/);
  assert.match(error.message, /Gave up after 1 retry/);
  assert.deepEqual(error.attempts?.http_statuses, [0, 0]);
});

Deno.test("http: a hanging call ends when the question is cancelled (timeout or Ctrl-C)", async () => {
  await using service = startRagService((_r, _i, signal) => hang(signal));
  const stop = new AbortController();
  const pending = ask(optionsAt(service.origin, { timeout_s: 3600 }), {}, stop.signal);
  while (service.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  const { error } = await pending;
  assert.ok(error instanceof SystemFailedError);
  assert.match(error.message, /the call was cancelled/);
});

Deno.test("http: 500s then success are retried and counted on the step", async () => {
  const { recorder, error } = await (async () => {
    await using service = startRagService((_r, index) =>
      index < 2
        ? new Response("overloaded", { status: 500, headers: { "retry-after-ms": "5" } })
        : Response.json(GOOD)
    );
    return await ask(optionsAt(service.origin, { max_retries: 3 }));
  })();
  assert.equal(error, null);
  const model = recorder.steps.at(-1) as ModelStep;
  assert.equal(model.retries, 2);
  assert.deepEqual(model.http_statuses, [500, 500]);
  assert.equal(model.backoff_ms, 10);
});

Deno.test("http: 500s past max_retries fail with the retries on the error", async () => {
  const error = await failure(
    () => new Response("down", { status: 503, headers: { "retry-after-ms": "1" } }),
    { max_retries: 2 },
  );
  assert.match(error.message, /answered HTTP 503: down.*Gave up after 2 retries/);
  assert.deepEqual(error.attempts?.http_statuses, [503, 503, 503]);
});

Deno.test("http: ${VAR} in the url and headers is sent but masked in what it sends back", async () => {
  await using service = startRagService((request) =>
    request.path.includes("fail")
      ? new Response(`bad key ${TOKEN}`, { status: 401 })
      : Response.json({ ...GOOD, answer: `echo ${request.headers.authorization}` })
  );
  const options = optionsAt(service.origin, {
    url: `${service.origin}/ask?key=\${RB_SERVICE_TOKEN}`,
    headers: { Authorization: "Bearer ${RB_SERVICE_TOKEN}" },
  });
  const { recorder, outcome } = await ask(options);
  assert.equal(service.requests[0].path, `/ask?key=${TOKEN}`);
  assert.equal(service.requests[0].headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(outcome?.answer, "echo Bearer [secret]");
  assert.ok(!JSON.stringify(recorder.steps).includes(TOKEN));
  const { error } = await ask(optionsAt(service.origin, {
    url: `${service.origin}/fail?key=\${RB_SERVICE_TOKEN}`,
  }));
  assert.ok(error instanceof SystemFailedError);
  assert.match(
    error.message,
    /at http:\/\/127\.0\.0\.1:\d+\/fail: answered HTTP 401: bad key \[secret\]/,
  );
  assert.ok(!error.message.includes(TOKEN));
});

Deno.test("http: an unset ${VAR} stops the run before the first question, naming it", async () => {
  const options = optionsAt("http://127.0.0.1:9", {
    headers: { "X-Key": "${RB_NOT_SET_ANYWHERE}" },
  });
  const instance = http.start!(options, { name: "svc" });
  await assert.rejects(
    instance.ready,
    /system "svc" \(its header X-Key\): it refers to \$\{RB_NOT_SET_ANYWHERE\}, which is not set/,
  );
});

Deno.test("http: answers are recorded, reused at no cost, and replayed by --mock", async () => {
  await using dir = await tempTree();
  const cache = openResponseCache(dir.dir);
  try {
    const setup = (mode: ResponseCacheSetup["mode"]): ResponseCacheSetup => ({
      cache,
      mode,
      stats: emptyCacheStats(),
    });
    await using service = startRagService(() => Response.json(GOOD));
    const options = optionsAt(service.origin);
    const live = await ask(options, { responses: setup("read-write") });
    assert.equal(live.error, null);
    const replay = setup("replay");
    const mocked = await ask(options, { mock: true, responses: replay });
    assert.equal(service.requests.length, 1, "--mock sent nothing");
    assert.equal(mocked.outcome?.answer, GOOD.answer);
    const step = mocked.recorder.steps.at(-1) as ModelStep;
    assert.equal(step.cached, true);
    assert.equal(step.cost_usd, 0);
    assert.equal(step.recorded_cost_usd, 0.0004);
    assert.equal(replay.stats.hits, 1);
    assert.deepEqual(
      (mocked.recorder.steps[0] as RetrievalStep).results.map((r) => r.doc_id),
      ["eiffel", "tokyo"],
    );
    // Another request (a changed template) was never recorded: --mock says so.
    const other = await ask(
      optionsAt(service.origin, { request: { question: "{{question}}" } }),
      { mock: true, responses: setup("replay") },
    );
    assert.ok(other.error instanceof SystemFailedError);
    assert.match(
      other.error.message,
      /^--mock: no recorded answer of system "svc" for question "q1" \(repeat 1\): it was never recorded/,
    );
    assert.equal(service.requests.length, 1);
  } finally {
    cache.close();
  }
});
