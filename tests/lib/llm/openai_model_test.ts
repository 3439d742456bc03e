import assert from "node:assert/strict";
import process from "node:process";
import OpenAI from "openai";
import {
  type ChatRequest,
  type Model,
  ModelCallError,
  type ToolSpec,
} from "../../../lib/llm/model.ts";
import { createOpenAIModel, type OpenAIModelOptions } from "../../../lib/llm/openai_model.ts";
import {
  chatCompletion,
  errorBody,
  type FakeReply,
  startBlackHoleServer,
  startFakeOpenAIServer,
  unusedPort,
} from "../../support/fake_openai_server.ts";

/** Recognisable fake key: no failure message may contain it or any part of it. */
const FAKE_KEY = "sk-ragbench-FAKE-KEY-0123456789abcdef";
const PRICING = { input_per_mtok: 0.15, output_per_mtok: 0.6 };

const SEARCH_TOOL: ToolSpec = {
  name: "corpus_search",
  description: "Search the corpus.",
  parameters: {
    type: "object",
    properties: { query: { type: "string", description: "Words to look for." } },
    required: ["query"],
    additionalProperties: false,
  },
};

function modelAt(baseUrl: string, options: Partial<OpenAIModelOptions> = {}): Model {
  return createOpenAIModel({
    name: "gpt-4o-mini",
    baseUrl,
    apiKey: FAKE_KEY,
    pricing: PRICING,
    maxRetries: 0,
    ...options,
  });
}

function ask(question: string, tools: ToolSpec[] = []): ChatRequest {
  return { messages: [{ role: "user", content: question }], tools };
}

async function modelCallError(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelCallError, `expected ModelCallError, got ${error}`);
    return error;
  }
  assert.fail("expected chat() to reject");
}

function assertNoKey(error: ModelCallError): void {
  for (const text of [error.message, String(error), JSON.stringify({ message: error.message })]) {
    assert.ok(!text.includes(FAKE_KEY), `API key leaked: ${text}`);
    assert.ok(!text.includes("FAKE-KEY"), `part of the API key leaked: ${text}`);
  }
}

Deno.test("chat returns a plain text answer and sends no tools field without tools", async () => {
  await using server = startFakeOpenAIServer([
    {
      json: chatCompletion({
        content: "Paris.",
        usage: { prompt_tokens: 9, completion_tokens: 2 },
      }),
    },
  ]);
  const model = modelAt(server.baseUrl);

  const reply = await model.chat(ask("Capital of France?"), AbortSignal.timeout(5000));

  assert.deepEqual(reply, {
    content: "Paris.",
    tool_calls: [],
    usage: { input_tokens: 9, output_tokens: 2 },
    attempts: { retries: 0, http_statuses: [], backoff_ms: 0 },
  });
  assert.equal(model.id, "openai:gpt-4o-mini");
  assert.deepEqual(model.pricing, PRICING);
  assert.equal(server.requests.length, 1);
  const [request] = server.requests;
  assert.equal(request.path, "/v1/chat/completions");
  assert.equal(request.headers.authorization, `Bearer ${FAKE_KEY}`);
  assert.deepEqual(request.body, {
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "Capital of France?" }],
  });
});

Deno.test("a tool-call round trip sends the tools, maps the calls and replays them", async () => {
  await using server = startFakeOpenAIServer([
    {
      json: chatCompletion({
        tool_calls: [{ id: "call_a1", name: "corpus_search", arguments: '{"query":"eiffel"}' }],
        usage: { prompt_tokens: 50, completion_tokens: 7 },
      }),
    },
    {
      json: chatCompletion({
        content: "324 m.",
        usage: { prompt_tokens: 80, completion_tokens: 3 },
      }),
    },
  ]);
  const model = modelAt(server.baseUrl);
  const request = {
    messages: [
      { role: "system" as const, content: "Answer from the corpus." },
      { role: "user" as const, content: "How tall is the Eiffel tower?" },
    ],
    tools: [SEARCH_TOOL],
  };

  const first = await model.chat(request, AbortSignal.timeout(5000));

  assert.deepEqual(first, {
    content: null,
    tool_calls: [{ id: "call_a1", name: "corpus_search", arguments: '{"query":"eiffel"}' }],
    usage: { input_tokens: 50, output_tokens: 7 },
    attempts: { retries: 0, http_statuses: [], backoff_ms: 0 },
  });
  const sent = server.requests[0].body as Record<string, unknown>;
  assert.deepEqual(sent.tools, [{
    type: "function",
    function: {
      name: "corpus_search",
      description: "Search the corpus.",
      parameters: SEARCH_TOOL.parameters,
    },
  }]);
  assert.equal(sent.tool_choice, "auto");

  const second = await model.chat({
    messages: [
      ...request.messages,
      { role: "assistant", content: first.content, tool_calls: first.tool_calls },
      { role: "tool", tool_call_id: "call_a1", content: "d7: The tower is 324 m tall." },
    ],
    tools: [SEARCH_TOOL],
  }, AbortSignal.timeout(5000));

  assert.equal(second.content, "324 m.");
  const replayed = (server.requests[1].body as Record<string, unknown>).messages;
  assert.deepEqual(replayed, [
    { role: "system", content: "Answer from the corpus." },
    { role: "user", content: "How tall is the Eiffel tower?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_a1",
        type: "function",
        function: { name: "corpus_search", arguments: '{"query":"eiffel"}' },
      }],
    },
    { role: "tool", tool_call_id: "call_a1", content: "d7: The tower is 324 m tall." },
  ]);
});

Deno.test("tool-call arguments that are not valid JSON are passed through raw", async () => {
  const cases = [
    { sent: '{"query": "unterminated', expected: '{"query": "unterminated' },
    { sent: "not json at all", expected: "not json at all" },
    { sent: "", expected: "" },
  ];
  await using server = startFakeOpenAIServer((_request, index) => ({
    json: chatCompletion({
      tool_calls: [{ id: `c${index}`, name: "corpus_search", arguments: cases[index].sent }],
    }),
  }));
  const model = modelAt(server.baseUrl);
  for (const { expected } of cases) {
    const reply = await model.chat(ask("q", [SEARCH_TOOL]), AbortSignal.timeout(5000));
    assert.equal(reply.tool_calls[0].arguments, expected);
  }
});

Deno.test("tool calls without an id get a positional id; object arguments become JSON text", async () => {
  const body = chatCompletion();
  const choices = body.choices as { message: Record<string, unknown> }[];
  choices[0].message.tool_calls = [
    { type: "function", function: { name: "calculator", arguments: { expression: "1+1" } } },
    { id: "", type: "function", function: { name: "calculator", arguments: "{}" } },
  ];
  await using server = startFakeOpenAIServer([{ json: body }]);

  const reply = await modelAt(server.baseUrl).chat(ask("q"), AbortSignal.timeout(5000));

  assert.deepEqual(reply.tool_calls, [
    { id: "call_0", name: "calculator", arguments: '{"expression":"1+1"}' },
    { id: "call_1", name: "calculator", arguments: "{}" },
  ]);
});

Deno.test("usage maps prompt/completion tokens and is 0/0 when the server sends none", async () => {
  const cases: { reply: FakeReply; usage: { input_tokens: number; output_tokens: number } }[] = [
    {
      reply: {
        json: chatCompletion({
          content: "a",
          usage: { prompt_tokens: 1234, completion_tokens: 56 },
        }),
      },
      usage: { input_tokens: 1234, output_tokens: 56 },
    },
    {
      reply: { json: chatCompletion({ content: "b" }) },
      usage: { input_tokens: 0, output_tokens: 0 },
    },
    {
      reply: { json: { ...chatCompletion({ content: "c" }), usage: { total_tokens: 9 } } },
      usage: { input_tokens: 0, output_tokens: 0 },
    },
  ];
  await using server = startFakeOpenAIServer(cases.map((c) => c.reply));
  const model = modelAt(server.baseUrl);
  for (const { usage } of cases) {
    const reply = await model.chat(ask("q"), AbortSignal.timeout(5000));
    assert.deepEqual(reply.usage, usage);
  }
});

Deno.test("temperature and maxTokens are sent only when set (max_tokens to a custom base URL)", async () => {
  await using server = startFakeOpenAIServer([
    { json: chatCompletion({ content: "x" }) },
    { json: chatCompletion({ content: "y" }) },
  ]);
  await modelAt(server.baseUrl, { temperature: 0, maxTokens: 256 }).chat(
    ask("q"),
    AbortSignal.timeout(5000),
  );
  await modelAt(server.baseUrl).chat(ask("q"), AbortSignal.timeout(5000));

  const [withOptions, without] = server.requests.map((r) => r.body as Record<string, unknown>);
  assert.equal(withOptions.temperature, 0);
  assert.equal(withOptions.max_tokens, 256);
  assert.equal("max_completion_tokens" in withOptions, false);
  assert.equal("temperature" in without, false);
  assert.equal("max_tokens" in without, false);
});

Deno.test("HTTP errors reject with ModelCallError that says what to do and hides the key", async () => {
  const cases: { name: string; reply: FakeReply; message: string }[] = [
    {
      name: "500",
      reply: { status: 500, json: errorBody("The server had an error.", "server_error") },
      message: "Model API at {url} failed (HTTP 500: The server had an error.). " +
        "The server had a problem; try again later or check its logs.",
    },
    {
      name: "401 quoting the key",
      reply: {
        status: 401,
        json: errorBody(
          `Incorrect API key provided: ${FAKE_KEY}.`,
          "invalid_request_error",
          "invalid_api_key",
        ),
      },
      message: "Model API at {url} rejected the API key (HTTP 401). " +
        "Check the environment variable named by model.api_key_env holds a valid key for this server.",
    },
    {
      name: "404",
      reply: { status: 404, json: errorBody("The model `gpt-4o-mini` does not exist.") },
      message: 'Model API at {url} answered 404 Not Found for model "gpt-4o-mini" ' +
        "(The model `gpt-4o-mini` does not exist.). " +
        "Check model.name and that model.base_url is the API root (usually ending in /v1).",
    },
    {
      name: "429",
      reply: { status: 429, json: errorBody("Rate limit reached.", "requests") },
      message: "Model API at {url} rate-limited the request (HTTP 429: Rate limit reached.). " +
        "Lower evaluation.concurrency, wait, or check the account's quota.",
    },
    {
      name: "400 echoing a bearer token",
      reply: { status: 400, json: errorBody(`Bad header Bearer ${FAKE_KEY} and sk-abc***wxyz`) },
      message: 'Model API at {url} rejected the request for model "gpt-4o-mini" ' +
        "(HTTP 400: Bad header Bearer [redacted] and [redacted]). " +
        "Check model.name and the model options (tools, temperature, max tokens) this server accepts.",
    },
  ];
  for (const { name, reply, message } of cases) {
    await using server = startFakeOpenAIServer([reply]);
    const error = await modelCallError(
      modelAt(server.baseUrl).chat(ask("q"), AbortSignal.timeout(5000)),
    );
    assert.equal(error.message, message.replace("{url}", server.baseUrl), name);
    assert.ok(error.cause instanceof OpenAI.APIError, `${name}: cause is the SDK error`);
    assertNoKey(error);
  }
});

Deno.test("a 5xx is retried maxRetries times and the message says so", async () => {
  await using server = startFakeOpenAIServer((_request, index) =>
    index < 2
      ? { status: 503, json: errorBody("Overloaded.", "server_error") }
      : { json: chatCompletion({ content: "late" }) }
  );
  const error = await modelCallError(
    modelAt(server.baseUrl, { maxRetries: 1 }).chat(ask("q"), AbortSignal.timeout(10_000)),
  );
  assert.equal(server.requests.length, 2);
  assert.equal(
    error.message,
    `Model API at ${server.baseUrl} failed (HTTP 503: Overloaded.) (after 1 retry). ` +
      "The server had a problem; try again later or check its logs.",
  );
});

Deno.test("without an API key no Authorization header is sent and a 401 says none was set", async () => {
  await using server = startFakeOpenAIServer([
    { json: chatCompletion({ content: "local" }) },
    { status: 401, json: errorBody("Missing bearer token.") },
  ]);
  const model = modelAt(server.baseUrl, { apiKey: null });

  assert.equal((await model.chat(ask("q"), AbortSignal.timeout(5000))).content, "local");
  assert.equal("authorization" in server.requests[0].headers, false);
  const error = await modelCallError(model.chat(ask("q"), AbortSignal.timeout(5000)));
  assert.equal(
    error.message,
    `Model API at ${server.baseUrl} requires an API key (HTTP 401) and none was set. ` +
      "Set the environment variable named by model.api_key_env.",
  );
});

Deno.test("replies that are not chat completions reject as malformed", async () => {
  const cases: { reply: FakeReply; message: string }[] = [
    {
      reply: { json: { id: "x", object: "chat.completion", choices: [] } },
      message: "Model API at {url} returned a malformed reply: no choices. " +
        "Check that model.base_url points to an OpenAI-compatible chat-completions API.",
    },
    {
      reply: { json: {} },
      message: "Model API at {url} returned a malformed reply: no choices. " +
        "Check that model.base_url points to an OpenAI-compatible chat-completions API.",
    },
    {
      reply: { json: { choices: [{ index: 0, message: { tool_calls: [{ id: "c" }] } }] } },
      message: "Model API at {url} returned a malformed reply: tool call 1 has no function name. " +
        "Check that model.base_url points to an OpenAI-compatible chat-completions API.",
    },
    {
      reply: { text: "<html>welcome</html>", contentType: "text/html" },
      message: "Model API at {url} returned a malformed reply: the body is not a JSON object. " +
        "Check that model.base_url points to an OpenAI-compatible chat-completions API.",
    },
    {
      reply: { text: '{"choices": [', contentType: "application/json" },
      message: "Model API at {url} returned a reply that could not be read (SyntaxError: ",
    },
  ];
  for (const { reply, message } of cases) {
    await using server = startFakeOpenAIServer([reply]);
    const error = await modelCallError(
      modelAt(server.baseUrl).chat(ask("q"), AbortSignal.timeout(5000)),
    );
    assert.ok(
      error.message.startsWith(message.replace("{url}", server.baseUrl)),
      `unexpected message: ${error.message}`,
    );
  }
});

Deno.test("an unreachable endpoint rejects with 'connection refused', not at its time limit", async () => {
  const baseUrl = `http://127.0.0.1:${unusedPort()}/v1`;

  const error = await modelCallError(modelAt(baseUrl).chat(ask("q"), AbortSignal.timeout(10_000)));

  assert.equal(
    error.message,
    `Model API at ${baseUrl} could not be reached: connection refused. ` +
      "Check model.base_url and that the server is running.",
  );
  assert.ok(error.cause instanceof OpenAI.APIConnectionError);
});

Deno.test("a port fetch refuses to use is reported as such", async () => {
  const error = await modelCallError(
    modelAt("http://127.0.0.1:9/v1").chat(ask("q"), AbortSignal.timeout(5000)),
  );
  assert.equal(
    error.message,
    "Model API at http://127.0.0.1:9/v1 could not be reached: " +
      "port 9 is on fetch's list of blocked ports. Serve the model on another port and update model.base_url.",
  );
});

Deno.test({
  name: "a host outside --allow-net is reported with the flag to add",
  ignore: Deno.permissions.querySync({ name: "net", host: "127.0.0.2:8" }).state === "granted",
  async fn() {
    const error = await modelCallError(
      modelAt("http://127.0.0.2:8/v1").chat(ask("q"), AbortSignal.timeout(5000)),
    );
    assert.equal(
      error.message,
      'Model API at http://127.0.0.2:8/v1 could not be reached: network permission for "127.0.0.2:8" ' +
        "was not granted. Run again with --allow-net=127.0.0.2:8.",
    );
  },
});

Deno.test("aborting the signal cancels the HTTP request and rejects", async () => {
  await using server = startBlackHoleServer();
  const controller = new AbortController();
  const pending = modelAt(server.baseUrl).chat(ask("q"), controller.signal);
  await server.requestArrived;
  controller.abort();

  // The black hole never answers: only the abort can end the call.
  const error = await modelCallError(pending);

  await server.clientHungUp; // the connection was closed, not left running
  assert.equal(
    error.message,
    "Model call openai:gpt-4o-mini was cancelled before the reply arrived.",
  );
  assert.ok(error.cause instanceof OpenAI.APIUserAbortError);
});

Deno.test("an already-aborted timeout signal rejects and says the time limit ran out", async () => {
  await using server = startFakeOpenAIServer([{ json: chatCompletion({ content: "x" }) }]);
  const signal = AbortSignal.timeout(1);
  await new Promise((resolve) => setTimeout(resolve, 20));

  const error = await modelCallError(modelAt(server.baseUrl).chat(ask("q"), signal));

  assert.equal(
    error.message,
    "Model call openai:gpt-4o-mini was cancelled before the reply arrived (the caller's time limit ran out).",
  );
  assert.equal(server.requests.length, 0);
});

Deno.test("a server slower than timeoutMs rejects with a timeout message", async () => {
  await using server = startBlackHoleServer();

  const error = await modelCallError(
    modelAt(server.baseUrl, { timeoutMs: 200 }).chat(ask("q"), AbortSignal.timeout(10_000)),
  );

  assert.equal(
    error.message,
    `Model API at ${server.baseUrl} did not answer within 0.2 s. ` +
      "Check that the server is up and not overloaded, or allow the model a longer timeout.",
  );
  assert.ok(error.cause instanceof OpenAI.APIConnectionTimeoutError);
  await server.clientHungUp; // the timed-out request was cancelled
});

Deno.test("createOpenAIModel rejects a base URL that is not http(s), without echoing credentials", () => {
  assert.throws(
    () => modelAt("not a url"),
    (error: unknown) =>
      error instanceof ModelCallError &&
      error.message ===
        'model.base_url "not a url" is not a valid URL. Use the API root, e.g. http://127.0.0.1:11434/v1.',
  );
  assert.throws(
    () => modelAt("ftp://user:secret@host/v1"),
    (error: unknown) =>
      error instanceof ModelCallError &&
      error.message ===
        'model.base_url "ftp://host" must use http or https. Use the API root, e.g. http://127.0.0.1:11434/v1.',
  );
});

Deno.test("failure messages never show user info or query of the base URL", async () => {
  const port = unusedPort();
  const error = await modelCallError(
    modelAt(`http://user:hunter2@127.0.0.1:${port}/v1/?token=abc`).chat(
      ask("q"),
      AbortSignal.timeout(5000),
    ),
  );
  assert.ok(!error.message.includes("hunter2"), error.message);
  assert.ok(!error.message.includes("token=abc"), error.message);
  assert.ok(
    error.message.startsWith(`Model API at http://127.0.0.1:${port}/v1 could not be reached`),
  );
});

Deno.test("the client reads no environment variable and restores process.env", async () => {
  // Swap process.env for a recorder: the SDK looks up variables through it.
  const original = Object.getOwnPropertyDescriptor(process, "env");
  assert.ok(original, "process.env should be an own property");
  const read: string[] = [];
  const recorder = new Proxy({}, {
    get(_target, key) {
      read.push(String(key));
      return undefined;
    },
  });
  await using server = startFakeOpenAIServer([{ json: chatCompletion({ content: "ok" }) }]);
  try {
    Object.defineProperty(process, "env", { value: recorder, configurable: true, writable: true });
    const model = modelAt(server.baseUrl);
    assert.equal(process.env, recorder, "createOpenAIModel must put process.env back");
    await model.chat(ask("q"), AbortSignal.timeout(5000));
  } finally {
    Object.defineProperty(process, "env", original);
  }
  assert.deepEqual(read, []);
});

Deno.test("a call works under deno run --no-prompt --allow-net=127.0.0.1 and nothing else", async () => {
  // The child serves and calls in one process, so loopback is its only permission.
  const script = `
    import { createOpenAIModel } from "./lib/llm/openai_model.ts";
    import { chatCompletion, startFakeOpenAIServer } from "./tests/support/fake_openai_server.ts";
    await using server = startFakeOpenAIServer([{ json: chatCompletion({ content: "child ok" }) }]);
    const model = createOpenAIModel({ name: "m", baseUrl: server.baseUrl, apiKey: "k", pricing: { input_per_mtok: 0, output_per_mtok: 0 }, maxRetries: 0 });
    const reply = await model.chat({ messages: [{ role: "user", content: "q" }], tools: [] }, AbortSignal.timeout(5000));
    console.log(JSON.stringify(reply));
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-net=127.0.0.1", "-"],
    cwd: new URL("../../../", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const err = new TextDecoder().decode(stderr);

  assert.equal(code, 0, err);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
    content: "child ok",
    tool_calls: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    attempts: { retries: 0, http_statuses: [], backoff_ms: 0 },
  });
  assert.ok(!/Requires|permission/i.test(err), err);
});
