import assert from "node:assert/strict";
import {
  createOpenAIEmbedder,
  type OpenAIEmbedderOptions,
  RETRY_BASE_MS,
} from "../../../lib/dense/openai_embedder.ts";
import { EmbeddingError, retryAfter } from "../../../lib/dense/embedding_errors.ts";
import { ModelCallError } from "../../../lib/llm/model.ts";
import {
  defaultEmbeddingReply,
  startFakeEmbeddingsServer,
} from "../../support/fake_embeddings_server.ts";
import { startBlackHoleServer, unusedPort } from "../../support/fake_openai_server.ts";
import { EmbeddingCache } from "../../../lib/dense/embedding_cache.ts";
import { tempTree } from "../../support/temp.ts";

const signal = new AbortController().signal;
const KEY = "sk-test-secret-key-1234567890";

function options(baseUrl: string, extra: Partial<OpenAIEmbedderOptions> = {}) {
  const waits: number[] = [];
  const all: OpenAIEmbedderOptions = {
    model: "fake-embed",
    baseUrl,
    apiKey: KEY,
    dimensions: null,
    batchSize: 2,
    maxRetries: 2,
    timeoutMs: 5_000,
    queryPrefix: "query: ",
    passagePrefix: "passage: ",
    pricePerMtok: null,
    cache: null,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...extra,
  };
  return { all, waits };
}

Deno.test("openai embedder sends prefixed texts in batches with the key and float encoding", async () => {
  await using server = startFakeEmbeddingsServer();
  const { all } = options(server.baseUrl, { pricePerMtok: 2 });
  const embedder = createOpenAIEmbedder(all);
  const got = await embedder.embed(["one two", "three", "four five six"], {
    kind: "passage",
    signal,
  });
  assert.equal(server.requests.length, 2);
  assert.deepEqual(server.requests.map((r) => r.body.input), [
    ["passage: one two", "passage: three"],
    ["passage: four five six"],
  ]);
  const first = server.requests[0];
  assert.equal(first.body.model, "fake-embed");
  assert.equal(first.body.encoding_format, "float");
  assert.equal("dimensions" in first.body, false, "dimensions is sent only when set");
  assert.equal(first.headers.authorization, `Bearer ${KEY}`);
  assert.equal(got.dimensions, 32);
  assert.equal(got.vectors.length, 3 * 32);
  const expected = defaultEmbeddingReply(["passage: four five six"]).data as {
    embedding: number[];
  }[];
  assert.deepEqual(Array.from(got.vectors.subarray(64)), expected[0].embedding);
  // Tokens from usage (one per word, the prefix included): 3 + 2 + 4.
  assert.equal(got.tokens, 9);
  assert.equal(got.cost_usd, 9 * 2 / 1_000_000);
  assert.equal(embedder.id, `openai:${server.baseUrl}:fake-embed@native`);
});

Deno.test("openai embedder sends dimensions when set, the query prefix, and no key header without a key", async () => {
  await using server = startFakeEmbeddingsServer();
  const { all } = options(server.baseUrl, { dimensions: 8, apiKey: null });
  const embedder = createOpenAIEmbedder(all);
  const got = await embedder.embed(["what is lift"], { kind: "query", signal });
  assert.equal(server.requests[0].body.dimensions, 8);
  assert.deepEqual(server.requests[0].body.input, ["query: what is lift"]);
  assert.equal(server.requests[0].headers.authorization, undefined);
  assert.equal(got.dimensions, 8);
  assert.equal(embedder.id, `openai:${server.baseUrl}:fake-embed@8`);
});

Deno.test("openai embedder sends a repeated text once and never sends an empty one", async () => {
  await using server = startFakeEmbeddingsServer();
  const { all } = options(server.baseUrl, { batchSize: 10 });
  const got = await createOpenAIEmbedder(all).embed(["a b", "", "a b"], {
    kind: "passage",
    signal,
  });
  assert.deepEqual(server.requests.map((r) => r.body.input), [["passage: a b"]]);
  assert.deepEqual(got.vectors.subarray(0, 32), got.vectors.subarray(64, 96));
  assert.ok(got.vectors.subarray(32, 64).every((v) => v === 0));
});

Deno.test("texts sent cost tokens × the price; at an unknown price they cost null, never 0", async () => {
  await using t = await tempTree();
  await using server = startFakeEmbeddingsServer();
  using cache = EmbeddingCache.open(t.path("e.sqlite"));
  const embed = (pricePerMtok: number | null, text: string) =>
    createOpenAIEmbedder(options(server.baseUrl, { pricePerMtok, cache }).all).embed([text], {
      kind: "passage",
      signal,
    });
  // "passage: x y" is three words, three tokens.
  assert.equal((await embed(0.02, "x y")).cost_usd, 3 * 0.02 / 1e6);
  assert.equal((await embed(0, "x y z")).cost_usd, 0);
  assert.equal((await embed(null, "x y z w")).cost_usd, null);
  // Served from the cache: nothing billed, so 0 even at an unknown price.
  const cached = await embed(null, "x y");
  assert.equal(cached.cached, 1);
  assert.equal(cached.cost_usd, 0);
});

Deno.test("openai embedder retries 429 honouring Retry-After, and 5xx with exponential backoff", async () => {
  await using server = startFakeEmbeddingsServer((_r, i) =>
    i === 0
      ? { status: 429, json: { error: { message: "slow down" } }, headers: { "retry-after": "3" } }
      : i === 1
      ? { status: 503, json: { error: { message: "busy" } } }
      : "default"
  );
  const { all, waits } = options(server.baseUrl, { maxRetries: 3 });
  const got = await createOpenAIEmbedder(all).embed(["x"], { kind: "passage", signal });
  assert.equal(server.requests.length, 3);
  assert.deepEqual(waits, [3000, RETRY_BASE_MS * 2]);
  assert.equal(got.dimensions, 32);
});

Deno.test("openai embedder gives up after max_retries, naming the host and model but never the key", async () => {
  await using server = startFakeEmbeddingsServer(() => ({
    status: 500,
    json: { error: { message: `internal error for key ${KEY}` } },
  }));
  const { all, waits } = options(server.baseUrl, { maxRetries: 2 });
  const error = await createOpenAIEmbedder(all).embed(["x"], { kind: "passage", signal }).then(
    () => assert.fail("should reject"),
    (e) => e,
  );
  assert.ok(error instanceof EmbeddingError);
  assert.ok(error instanceof ModelCallError, "a per-question model error during a run");
  assert.equal(server.requests.length, 3);
  assert.deepEqual(waits, [500, 1000]);
  assert.match(
    error.message,
    new RegExp(`Embedding API at ${server.baseUrl} \\(model "fake-embed"\\) failed \\(HTTP 500`),
  );
  assert.match(error.message, /Gave up after 2 retries/);
  assert.ok(!error.message.includes(KEY));
});

Deno.test("a 400 is not retried and a 401 names the key variable, not the key", async () => {
  await using bad = startFakeEmbeddingsServer(() => ({
    status: 400,
    json: { error: { message: "dimensions not supported" } },
  }));
  await assert.rejects(
    createOpenAIEmbedder(options(bad.baseUrl).all).embed(["x"], { kind: "passage", signal }),
    /rejected the request \(HTTP 400: dimensions not supported\)\. Check embedding\.model/,
  );
  assert.equal(bad.requests.length, 1);
  await using denied = startFakeEmbeddingsServer(() => ({
    status: 401,
    json: { error: { message: `Incorrect API key provided: ${KEY.slice(0, 8)}****` } },
  }));
  const error = await createOpenAIEmbedder(options(denied.baseUrl).all)
    .embed(["x"], { kind: "passage", signal }).catch((e) => e);
  assert.match(error.message, /rejected the API key \(HTTP 401\).*embedding\.api_key_env/);
  assert.ok(!error.message.includes(KEY.slice(0, 8)));
  const keyless = await createOpenAIEmbedder(options(denied.baseUrl, { apiKey: null }).all)
    .embed(["x"], { kind: "passage", signal }).catch((e) => e);
  assert.match(keyless.message, /requires an API key \(HTTP 401\) and none was sent/);
});

Deno.test("an endpoint that is down is a clear error naming the server", async () => {
  const baseUrl = `http://127.0.0.1:${unusedPort()}/v1`;
  const { all, waits } = options(baseUrl, { maxRetries: 1 });
  await assert.rejects(
    createOpenAIEmbedder(all).embed(["x"], { kind: "passage", signal }),
    (e: Error) => {
      assert.match(
        e.message,
        new RegExp(
          `Embedding API at ${baseUrl} \\(model "fake-embed"\\) could not be reached: connection refused`,
        ),
      );
      assert.match(e.message, /Gave up after 1 retry/);
      return true;
    },
  );
  assert.deepEqual(waits, [500]);
});

for (
  const [what, reply, pattern] of [
    [
      "vectors of the wrong size",
      { data: [{ index: 0, embedding: [1, 2, 3] }] },
      /returned unusable vectors: a vector of 3 numbers where 8 were expected \(embedding\.dimensions\)/,
    ],
    [
      "the wrong number of vectors",
      { data: [] },
      /returned unusable vectors: 0 vectors for 1 texts/,
    ],
    [
      "a non-finite value",
      { data: [{ index: 0, embedding: [1, 2, 3, 4, 5, 6, 7, "NaN"] }] },
      /returned unusable vectors: item 0 holds a non-finite value at position 7/,
    ],
    ["no data list", { object: "list" }, /returned unusable vectors: the reply has no data list/],
  ] as const
) {
  Deno.test(`a reply with ${what} is refused naming the host and model`, async () => {
    await using server = startFakeEmbeddingsServer(() => ({ json: reply }));
    const { all } = options(server.baseUrl, { dimensions: 8 });
    await assert.rejects(
      createOpenAIEmbedder(all).embed(["x"], { kind: "passage", signal }),
      (e: Error) => {
        assert.match(e.message, pattern);
        assert.ok(e.message.startsWith(`Embedding API at ${server.baseUrl} (model "fake-embed")`));
        return true;
      },
    );
    assert.equal(server.requests.length, 1, "not retried");
  });
}

Deno.test("a later batch of another size than the first is refused", async () => {
  await using server = startFakeEmbeddingsServer((r, i) =>
    i === 0 ? "default" : { json: defaultEmbeddingReply(r.body.input ?? [], 16) }
  );
  await assert.rejects(
    createOpenAIEmbedder(options(server.baseUrl, { batchSize: 1 }).all).embed(["a", "b"], {
      kind: "passage",
      signal,
    }),
    /a vector of 16 numbers where 32 were expected \(the size of earlier vectors\)/,
  );
});

Deno.test("aborting cancels the wait between retries", async () => {
  await using server = startFakeEmbeddingsServer(() => ({ status: 503, json: {} }));
  const controller = new AbortController();
  const { all } = options(server.baseUrl, {
    maxRetries: 5,
    sleep: (_ms, s) => {
      controller.abort();
      return Promise.reject(s.reason);
    },
  });
  await assert.rejects(
    createOpenAIEmbedder(all).embed(["x"], { kind: "passage", signal: controller.signal }),
    /Embedding request to .* was cancelled/,
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("a server that never answers times out with a message naming it and the limit", async () => {
  await using server = startBlackHoleServer();
  const { all } = options(server.baseUrl, { timeoutMs: 200, maxRetries: 0 });
  await assert.rejects(
    createOpenAIEmbedder(all).embed(["x"], { kind: "passage", signal }),
    new RegExp(
      `Embedding API at ${server.baseUrl} \\(model "fake-embed"\\) did not answer within 0.2 s.*embedding\\.timeout_s`,
    ),
  );
});

Deno.test("replies without index fields, or out of order, are placed by index", async () => {
  const vector = (x: number) => [x, 0, 0, 0];
  await using plain = startFakeEmbeddingsServer(() => ({
    json: { data: [{ embedding: vector(1) }, { embedding: vector(2) }] },
  }));
  const a = await createOpenAIEmbedder(options(plain.baseUrl).all).embed(["a", "b"], {
    kind: "passage",
    signal,
  });
  assert.deepEqual(Array.from(a.vectors), [...vector(1), ...vector(2)]);
  assert.equal(a.tokens, Math.ceil(("passage: a".length + "passage: b".length) / 4), "estimated");
  await using shuffled = startFakeEmbeddingsServer(() => ({
    json: { data: [{ index: 1, embedding: vector(2) }, { index: 0, embedding: vector(1) }] },
  }));
  const b = await createOpenAIEmbedder(options(shuffled.baseUrl).all).embed(["a", "b"], {
    kind: "passage",
    signal,
  });
  assert.deepEqual(Array.from(b.vectors), [...vector(1), ...vector(2)]);
  await using repeated = startFakeEmbeddingsServer(() => ({
    json: { data: [{ index: 0, embedding: vector(2) }, { index: 0, embedding: vector(1) }] },
  }));
  await assert.rejects(
    createOpenAIEmbedder(options(repeated.baseUrl).all).embed(["a", "b"], {
      kind: "passage",
      signal,
    }),
    /item 1 has a bad or repeated index 0/,
  );
});

Deno.test("Retry-After is read as milliseconds, seconds or an HTTP date, capped at 60 s", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const h = (init: Record<string, string>) => new Headers(init);
  assert.equal(retryAfter(h({ "retry-after-ms": "250" }), now), 250);
  assert.equal(retryAfter(h({ "retry-after": "2" }), now), 2000);
  assert.equal(retryAfter(h({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now), 5000);
  assert.equal(retryAfter(h({ "retry-after": "3600" }), now), 60_000);
  assert.equal(retryAfter(h({ "retry-after": "soon" }), now), null);
  assert.equal(retryAfter(h({}), now), null);
});
