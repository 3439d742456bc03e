import assert from "node:assert/strict";
import { createOpenAIModel } from "../../../lib/llm/openai_model.ts";
import { ModelCallError } from "../../../lib/llm/model.ts";
import { type RetryClock, retryDelayMs, serverWaitMs } from "../../../lib/llm/retry_policy.ts";
import {
  chatCompletion,
  errorBody,
  startFakeOpenAIServer,
} from "../../support/fake_openai_server.ts";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A clock that never really sleeps: it records each wait. */
function fakeClock(random = 0.5): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => NOW,
    random: () => random,
    sleep(ms, signal) {
      waits.push(ms);
      return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    },
  };
}

function modelAt(baseUrl: string, clock: RetryClock, maxRetries = 2) {
  return createOpenAIModel({
    name: "m",
    baseUrl,
    apiKey: null,
    pricing: { input_per_mtok: 0, output_per_mtok: 0 },
    maxRetries,
    clock,
  });
}

const ASK = { messages: [{ role: "user" as const, content: "q" }], tools: [] };

Deno.test("Retry-After in seconds, as an HTTP date, and retry-after-ms are honoured", () => {
  const h = (init: Record<string, string>) => new Headers(init);
  assert.equal(serverWaitMs(h({ "retry-after": "3" }), NOW), 3000);
  assert.equal(serverWaitMs(h({ "retry-after": "1.5" }), NOW), 1500);
  assert.equal(
    serverWaitMs(h({ "retry-after": new Date(NOW + 7000).toUTCString() }), NOW),
    7000,
  );
  assert.equal(serverWaitMs(h({ "retry-after": new Date(NOW - 7000).toUTCString() }), NOW), 0);
  assert.equal(serverWaitMs(h({ "retry-after-ms": "250", "retry-after": "9" }), NOW), 250);
  // Unusable or too long: no server wait (backoff takes over).
  assert.equal(serverWaitMs(h({ "retry-after": "soon" }), NOW), null);
  assert.equal(serverWaitMs(h({ "retry-after": "-1" }), NOW), null);
  assert.equal(serverWaitMs(h({ "retry-after": "3600" }), NOW), null);
  assert.equal(serverWaitMs(h({}), NOW), null);
  assert.equal(serverWaitMs(null, NOW), null);
});

Deno.test("without Retry-After the wait is exponential backoff with injected jitter, capped at 8 s", () => {
  const at = (random: number) => fakeClock(random);
  assert.equal(retryDelayMs(null, 1, at(0)), 500);
  assert.equal(retryDelayMs(null, 2, at(0)), 1000);
  assert.equal(retryDelayMs(null, 2, at(0.5)), 875);
  assert.equal(retryDelayMs(null, 3, at(0.999999)), 1500);
  assert.equal(retryDelayMs(null, 10, at(0)), 8000);
  assert.equal(retryDelayMs(new Headers({ "retry-after": "3600" }), 1, at(0)), 500);
});

Deno.test("a 429 with Retry-After, then a 500, then success: two retries recorded, the SDK retries nothing itself", async () => {
  await using server = startFakeOpenAIServer([
    { status: 429, json: errorBody("Slow down.", "rate_limit"), headers: { "retry-after": "2" } },
    { status: 500, json: errorBody("Oops.", "server_error") },
    { json: chatCompletion({ content: "ok", usage: { prompt_tokens: 3, completion_tokens: 1 } }) },
  ]);
  const clock = fakeClock(0.5);
  const reply = await modelAt(server.baseUrl, clock).chat(ASK, AbortSignal.timeout(10_000));
  assert.equal(reply.content, "ok");
  assert.deepEqual(reply.attempts, { retries: 2, http_statuses: [429, 500], backoff_ms: 2875 });
  assert.deepEqual(clock.waits, [2000, 875]);
  assert.equal(server.requests.length, 3);
});

Deno.test("with maxRetries 0 a 500 is one request and no wait", async () => {
  await using server = startFakeOpenAIServer([
    { status: 500, json: errorBody("Oops.", "server_error") },
    { json: chatCompletion({ content: "never" }) },
  ]);
  const clock = fakeClock();
  await assert.rejects(modelAt(server.baseUrl, clock, 0).chat(ASK, AbortSignal.timeout(10_000)));
  assert.equal(server.requests.length, 1);
  assert.deepEqual(clock.waits, []);
});

Deno.test("a call that fails after its last retry carries its attempts and says how many retries", async () => {
  await using server = startFakeOpenAIServer(() => ({
    status: 503,
    json: errorBody("Overloaded.", "server_error"),
    headers: { "retry-after-ms": "40" },
  }));
  const clock = fakeClock();
  const error = await modelAt(server.baseUrl, clock, 2).chat(ASK, AbortSignal.timeout(10_000))
    .then(() => assert.fail("expected a rejection"), (e) => e);
  assert.ok(error instanceof ModelCallError);
  assert.equal(
    error.message,
    `Model API at ${server.baseUrl} failed (HTTP 503: Overloaded.) (after 2 retries). ` +
      "The server had a problem; try again later or check its logs.",
  );
  assert.deepEqual(error.attempts, { retries: 2, http_statuses: [503, 503, 503], backoff_ms: 80 });
  assert.equal(server.requests.length, 3);
});

Deno.test("a 400 is not retried", async () => {
  await using server = startFakeOpenAIServer(() => ({
    status: 400,
    json: errorBody("Bad tools."),
  }));
  const clock = fakeClock();
  const error = await modelAt(server.baseUrl, clock, 3).chat(ASK, AbortSignal.timeout(10_000))
    .then(() => assert.fail("expected a rejection"), (e) => e);
  assert.ok(error instanceof ModelCallError);
  assert.deepEqual(error.attempts, { retries: 0, http_statuses: [400], backoff_ms: 0 });
  assert.equal(server.requests.length, 1);
});

Deno.test("cancelling during the backoff wait stops the retries at once", async () => {
  await using server = startFakeOpenAIServer(() => ({
    status: 429,
    json: errorBody("Slow down.", "rate_limit"),
    headers: { "retry-after": "30" },
  }));
  const controller = new AbortController();
  const clock: RetryClock = {
    now: () => NOW,
    random: () => 0,
    sleep(_ms, signal) {
      controller.abort();
      return Promise.reject(signal.reason);
    },
  };
  const error = await modelAt(server.baseUrl, clock, 5).chat(ASK, controller.signal)
    .then(() => assert.fail("expected a rejection"), (e) => e);
  assert.ok(error instanceof ModelCallError);
  assert.match(error.message, /was cancelled before the reply arrived/);
  assert.deepEqual(error.attempts, { retries: 0, http_statuses: [429], backoff_ms: 0 });
  assert.equal(server.requests.length, 1);
});
