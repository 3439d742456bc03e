import assert from "node:assert/strict";
import { createHttpRetriever, type HttpPaths } from "../../../lib/retrieval/http_retriever.ts";
import { documentsById } from "../../../lib/retrieval/remote/corpus_hits.ts";
import { parseJsonPath } from "../../../lib/util/json_path.ts";
import { Secrets } from "../../../lib/util/secrets.ts";
import type { RetryClock } from "../../../lib/llm/retry_policy.ts";
import { openResponseCache } from "../../../lib/cache/response_cache.ts";
import { emptyCacheStats } from "../../../lib/llm/cached_model.ts";
import type { RetrievalCacheSetup } from "../../../lib/retrieval/remote/cached_call.ts";
import type { CacheMode } from "../../../lib/cache/cache_mode.ts";
import type { Document } from "../../../lib/types.ts";
import { closedPort, huge, json, loopback } from "../../support/loopback_server.ts";
import { stallingServer } from "../../support/stalling_server.ts";
import { settledWithin, waitUntil } from "../../support/wait.ts";
import { tempTree } from "../../support/temp.ts";

const signal = new AbortController().signal;
const TOKEN = "tok-3141592653";
const DOCS: Document[] = [
  { id: "d1", title: "One", text: "first document text", source: "t" },
  { id: "d2", title: "Two", text: "second document text", source: "t" },
  { id: "42", title: "Answer", text: "numbered document", source: "t" },
];

function clock(): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => 0,
    random: () => 0,
    sleep: (ms) => (waits.push(ms), Promise.resolve()),
  };
}

function paths(over: Partial<Record<keyof HttpPaths, string | null>> = {}): HttpPaths {
  const p = { results: "$.hits", id: "$.doc_id", score: "$.score", text: "$.text", ...over };
  const parse = (text: string | null | undefined) => text ? parseJsonPath(text) : null;
  return {
    results: parseJsonPath(p.results!),
    id: parseJsonPath(p.id!),
    score: parse(p.score),
    text: parse(p.text),
    passage_id: parse(over.passage_id),
  };
}

function retrieverAt(
  base: string,
  options: {
    paths?: HttpPaths;
    timeoutMs?: number;
    maxRetries?: number;
    maxBytes?: number;
    cache?: RetrievalCacheSetup | null;
    clock?: RetryClock;
  } = {},
) {
  const secrets = new Secrets();
  secrets.add(TOKEN);
  const url = `${base}/search`;
  return createHttpRetriever({
    name: "prod",
    topK: 5,
    url,
    endpoint: `${url} {"authorization":"Bearer \${TOKEN}"}`,
    headers: { authorization: `Bearer ${TOKEN}` },
    secrets,
    site: { retriever: "prod", kind: "http", host: url },
    timeoutMs: options.timeoutMs ?? 5000,
    maxRetries: options.maxRetries ?? 2,
    maxBytes: options.maxBytes ?? 8 * 1_048_576,
    paths: options.paths ?? paths(),
    documents: documentsById(DOCS),
    cache: options.cache ?? null,
    clock: options.clock ?? clock(),
  });
}

async function failure(promise: Promise<unknown>): Promise<Error & { attempts?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

Deno.test("http retriever posts {query, top_k} and ranks the mapped hits by score", async () => {
  await using server = loopback(() =>
    json({
      hits: [
        { doc_id: "d2", score: 0.5, text: "service text" },
        { doc_id: 42, score: 0.9, text: "numbered" },
        { doc_id: "d1", score: 0.5, text: "first" },
      ],
    })
  );
  const outcome = await retrieverAt(server.url).search("what is it", 2, signal);
  assert.deepEqual(JSON.parse(server.received[0].body), { query: "what is it", top_k: 2 });
  assert.equal(server.received[0].headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(server.received[0].path, "/search");
  // By score, equal scores in the service's order, cut to k.
  assert.deepEqual(outcome.hits.map((h) => [h.passage.doc_id, h.score, h.passage.text]), [
    ["42", 0.9, "numbered"],
    ["d2", 0.5, "service text"],
  ]);
  assert.equal(outcome.hits[0].passage.title, "Answer");
  assert.deepEqual(outcome.attempts, { retries: 0, http_statuses: [], backoff_ms: 0 });
});

Deno.test("http retriever without score and text paths ranks by order and shows the document", async () => {
  await using server = loopback(() => json({ data: { results: [{ id: "d2" }, { id: "d1" }] } }));
  const retriever = retrieverAt(server.url, {
    paths: paths({ results: "$.data.results", id: "$.id", score: null, text: null }),
  });
  const outcome = await retriever.search("q", 5, signal);
  assert.deepEqual(outcome.hits.map((h) => [h.passage.id, h.score, h.passage.text]), [
    ["d2", 2, "second document text"],
    ["d1", 1, "first document text"],
  ]);
});

Deno.test("http retriever: a document id the corpus lacks is an error naming it, not a dropped hit", async () => {
  await using server = loopback(() =>
    json({ hits: [{ doc_id: "d1", score: 2, text: "x" }, { doc_id: "zz9", score: 1, text: "y" }] })
  );
  const error = await failure(retrieverAt(server.url).search("q", 5, signal));
  assert.match(error.message, /^Retriever "prod" \(http\) at http:\/\/127\.0\.0\.1:\d+\/search: /);
  assert.match(
    error.message,
    /returned document id "zz9" \(result 2\), which is not one of the run's 3 documents/,
  );
});

Deno.test("http retriever retries a 500 and then fails naming the host, the key masked", async () => {
  const clk = clock();
  await using server = loopback((req) =>
    json({ error: `upstream broke; you sent ${req.headers.authorization}` }, 500)
  );
  const error = await failure(retrieverAt(server.url, { clock: clk }).search("q", 3, signal));
  assert.equal(server.received.length, 3);
  assert.equal(clk.waits.length, 2);
  assert.match(
    error.message,
    /answered HTTP 500: .*Bearer \[secret\].*\(Gave up after 2 retries\.\)/,
  );
  assert.ok(!error.message.includes(TOKEN));
  assert.deepEqual(error.attempts, {
    retries: 2,
    http_statuses: [500, 500, 500],
    backoff_ms: clk.waits[0] + clk.waits[1],
  });
});

Deno.test("http retriever: malformed JSON, a missing list, a bad id or score are errors", async () => {
  const cases: Array<[() => Response, RegExp]> = [
    [
      () => new Response("{not json", { status: 200 }),
      /sent a reply that is not JSON .* it starts "\{not json"/,
    ],
    [() => json({ other: [] }), /no list of results at \$\.hits \(found nothing\)/],
    [() => json({ hits: { a: 1 } }), /no list of results at \$\.hits \(found an object\)/],
    [
      () => json({ hits: [{ score: 1 }] }),
      /result 1 has no id at \$\.doc_id \(found nothing; expected a string or a whole number\)/,
    ],
    [
      () => json({ hits: [{ doc_id: "d1", score: "high" }] }),
      /result 1 has no score at \$\.score \(found a string; expected a finite number\)/,
    ],
    [
      () => json({ hits: [{ doc_id: "d1", score: 1, text: 5 }] }),
      /result 1 has no text at \$\.text/,
    ],
    [
      () => new Response(null, { status: 302, headers: { location: "http://elsewhere/x" } }),
      /answered a redirect \(HTTP 302 to http:\/\/elsewhere\/x\)/,
    ],
  ];
  for (const [answer, message] of cases) {
    await using server = loopback(answer);
    const error = await failure(retrieverAt(server.url).search("q", 3, signal));
    assert.match(error.message, message);
    assert.equal(server.received.length, 1, `${message} is not retried`);
  }
});

Deno.test("http retriever: a service that does not answer in time is a timeout error", async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  await using server = loopback(async () => {
    await held;
    return json({ hits: [] });
  });
  try {
    const error = await failure(
      retrieverAt(server.url, { timeoutMs: 200, maxRetries: 1 }).search("q", 3, signal),
    );
    assert.match(error.message, /did not answer within 0\.2 s\. .*\(Gave up after 1 retry\.\)/);
    assert.equal(server.received.length, 2);
  } finally {
    release();
  }
});

Deno.test("http retriever: a service that stalls part-way through its reply is a timeout error", async () => {
  await using server = stallingServer("mid_body");
  const error = await failure(
    retrieverAt(server.url, { timeoutMs: 300, maxRetries: 1 }).search("q", 3, signal),
  );
  assert.match(
    error.message,
    new RegExp(
      `^Retriever "prod" \\(http\\) at ${server.url}/search: did not answer within 0\\.3 s\\. ` +
        ".*\\(Gave up after 1 retry\\.\\)",
    ),
  );
  assert.equal(server.requests, 2);
});

Deno.test("http retriever: Ctrl-C (the question's signal) ends a call stalled part-way", async () => {
  await using server = stallingServer("mid_body");
  const controller = new AbortController();
  const pending = failure(
    retrieverAt(server.url, { timeoutMs: 600_000 }).search("q", 3, controller.signal),
  );
  assert.ok(await waitUntil(() => server.requests === 1), "the call reached the service");
  controller.abort();
  const error = await settledWithin(pending);
  assert.match(error.message, /^Retriever "prod" \(http\) at .*: the call was cancelled\.$/);
  assert.equal(server.requests, 1, "a cancelled call is not retried");
});

Deno.test("http retriever: a service that is down is an error naming the host", async () => {
  const base = `http://127.0.0.1:${closedPort()}`;
  const error = await failure(retrieverAt(base, { maxRetries: 0 }).search("q", 3, signal));
  assert.match(
    error.message,
    new RegExp(`at ${base}/search: could not be reached: connection refused`),
  );
});

Deno.test("http retriever: a 50 MB reply is refused past the cap", async () => {
  await using server = loopback(() => huge(50));
  const error = await failure(
    retrieverAt(server.url, { maxBytes: 4 * 1_048_576 }).search("q", 3, signal),
  );
  assert.match(error.message, /sent a reply over 4 MB \(the limit of one reply\)/);
});

Deno.test("http retriever records answers in the response cache and replays them", async () => {
  const dir = await Deno.makeTempDir();
  const cache = openResponseCache(dir);
  try {
    const setup = (mode: CacheMode) => ({ cache, mode, stats: emptyCacheStats() });
    await using server = loopback(() => json({ hits: [{ doc_id: "d1", score: 1, text: "t" }] }));
    const live = setup("read-write");
    const first = await retrieverAt(server.url, { cache: live }).search("q", 3, signal);
    assert.equal(live.stats.recorded, 1);
    await server.close();
    const replay = setup("replay");
    const again = await retrieverAt(server.url, { cache: replay }).search("q", 3, signal);
    assert.deepEqual(again.hits, first.hits);
    assert.equal(replay.stats.hits, 1);
    assert.equal(server.received.length, 1);
    const miss = await failure(
      retrieverAt(server.url, { cache: replay }).search("other", 3, signal),
    );
    assert.match(
      miss.message,
      /Retriever "prod" \(http\) at .*: --cache replay: no recorded retrieval/,
    );
  } finally {
    cache.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A server whose first answer waits for `release` (true: it is a 500); later ones answer at once. */
function heldServer() {
  let release!: (fail: boolean) => void;
  const gate = new Promise<boolean>((resolve) => release = resolve);
  const server = loopback(async (_, n) => {
    if (n === 0 && await gate) return json({ error: "overloaded" }, 500);
    return json({ hits: [{ doc_id: "d1", score: n + 1, text: `answer ${n + 1}` }] });
  });
  return { server, release };
}

Deno.test("two retrievers asking the same query at once send one request: the second is served the first's answer as a hit", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const live = { cache, mode: "read-write" as const, stats: emptyCacheStats() };
    const held = heldServer();
    await using server = held.server;
    const first = retrieverAt(server.url, { cache: live }).search("q", 3, signal);
    assert.ok(await waitUntil(() => server.received.length === 1));
    const second = retrieverAt(server.url, { cache: live }).search("q", 3, signal);
    held.release(false);
    const [a, b] = await settledWithin(Promise.all([first, second]));
    assert.equal(server.received.length, 1, "one request for the two twins");
    assert.deepEqual(b.hits, a.hits);
    assert.equal(a.hits[0].passage.text, "answer 1");
    assert.deepEqual(live.stats, { hits: 1, misses: 1, corrupt: 0, recorded: 1, writeFailures: 0 });
    // What was recorded is what both got.
    const replay = { cache, mode: "replay" as const, stats: emptyCacheStats() };
    const again = await retrieverAt(server.url, { cache: replay }).search("q", 3, signal);
    assert.deepEqual(again.hits, a.hits);
  } finally {
    cache.close();
  }
});

Deno.test("when the in-flight twin fails the waiting retrieval sends its own request; an aborted waiter stops waiting", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const live = { cache, mode: "read-write" as const, stats: emptyCacheStats() };
    const held = heldServer();
    await using server = held.server;
    const first = retrieverAt(server.url, { cache: live, maxRetries: 0 }).search("q", 3, signal);
    assert.ok(await waitUntil(() => server.received.length === 1));
    const second = retrieverAt(server.url, { cache: live }).search("q", 3, signal);
    const stop = new AbortController();
    const third = retrieverAt(server.url, { cache: live }).search("q", 3, stop.signal);
    stop.abort(new Error("question timed out"));
    await assert.rejects(settledWithin(third), /question timed out/);
    assert.equal(server.received.length, 1, "the aborted waiter sent nothing");
    held.release(true);
    assert.match((await failure(first)).message, /500/);
    const b = await settledWithin(second);
    assert.equal(server.received.length, 2);
    assert.equal(b.hits[0].passage.text, "answer 2");
    assert.equal(live.stats.recorded, 1);
  } finally {
    cache.close();
  }
});
