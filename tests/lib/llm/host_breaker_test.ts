import assert from "node:assert/strict";
import { HostBreakers } from "../../../lib/llm/host_breaker.ts";
import { createOpenAIModel } from "../../../lib/llm/openai_model.ts";
import { ModelCallError } from "../../../lib/llm/model.ts";
import {
  chatCompletion,
  startFakeOpenAIServer,
  unusedPort,
} from "../../support/fake_openai_server.ts";

Deno.test("host breaker: models on one host share the count; a response resets it; once stopped it stays", () => {
  const hosts = new HostBreakers();
  const a = hosts.for("http://127.0.0.1:8080/v1", 3);
  const b = hosts.for("http://127.0.0.1:8080/other/v1", 3);
  const elsewhere = hosts.for("http://127.0.0.1:8081/v1", 3);
  a.failedToConnect("refused");
  b.failedToConnect("refused");
  a.answered();
  a.failedToConnect("refused");
  b.failedToConnect("refused");
  assert.equal(a.stopped(), null);
  b.failedToConnect("connection\n  refused");
  assert.equal(
    a.stopped(),
    "Not calling the model API at http://127.0.0.1:8080: the run stopped calling this host after 3 model calls in a row got no response (the last: connection refused). Start the server, or check model.base_url; model.max_connection_failures (now 3) sets how many such failures stop the calls.",
  );
  assert.equal(b.stopped(), a.stopped());
  a.answered();
  assert.notEqual(a.stopped(), null);
  assert.equal(elsewhere.stopped(), null);
  // http://host and http://host:80 are one host.
  const plain = hosts.for("http://example.test/v1", 1);
  plain.failedToConnect("x");
  assert.notEqual(hosts.for("http://example.test:80/v1", 1).stopped(), null);
  assert.throws(() => hosts.for("http://h/v1", 0), /integer >= 1, got 0/);
});

Deno.test("openai model: connection failures in a row stop its calls; HTTP errors are answers and do not", async () => {
  const pricing = { input_per_mtok: 0, output_per_mtok: 0 };
  const hosts = new HostBreakers();
  const dead = `http://127.0.0.1:${unusedPort()}/v1`;
  const model = createOpenAIModel({
    name: "m",
    baseUrl: dead,
    pricing,
    maxRetries: 0,
    breaker: hosts.for(dead, 2),
  });
  const ask = () =>
    model.chat(
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      new AbortController().signal,
    );
  for (
    const expected of [/connection refused/, /connection refused/, /^Not calling the model API/]
  ) {
    await assert.rejects(
      ask,
      (e: unknown) => e instanceof ModelCallError && expected.test(e.message),
    );
  }
  // A server answering 500 is up: any number of failed calls never stops it.
  let replies = 0;
  await using server = startFakeOpenAIServer(() => {
    replies++;
    return replies % 4 === 0
      ? { json: chatCompletion({ content: "ok" }) }
      : { status: 500, json: { error: { message: "busy" } } };
  });
  const busy = createOpenAIModel({
    name: "m",
    baseUrl: server.baseUrl,
    pricing,
    maxRetries: 0,
    breaker: hosts.for(server.baseUrl, 2),
  });
  for (let i = 0; i < 6; i++) {
    await busy.chat(
      { messages: [{ role: "user", content: "hi" }], tools: [] },
      new AbortController().signal,
    )
      .catch((e) => assert.match(e.message, /HTTP 500/));
  }
  assert.equal(server.requests.length, 6);
});
