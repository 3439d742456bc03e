/**
 * The `elasticsearch` and `opensearch` retrievers through their official
 * clients, against loopback servers: the transcripts of
 * tests/fixtures/engines (requests as the clients send them, responses in
 * the engines' documented formats; no real engine ran) and servers that
 * misbehave on purpose.
 */

import assert from "node:assert/strict";
import { readTranscript, replayServer } from "../../support/engine_transcripts.ts";
import {
  type EngineKind,
  type ScenarioName,
  scenarioRetriever,
  SCENARIOS,
} from "../../support/engine_scenarios.ts";
import { closedPort, json, loopback } from "../../support/loopback_server.ts";
import { stallingServer } from "../../support/stalling_server.ts";
import { settledWithin, waitUntil } from "../../support/wait.ts";

const signal = new AbortController().signal;
const ENGINES: EngineKind[] = ["elasticsearch", "opensearch"];
const BASIC = `Basic ${btoa("elastic:engine-password-271828")}`;

const EXPECTED: Record<ScenarioName, Array<[string, string, number]>> = {
  own_index_bm25: [["wing2#0", "wing2", 2.0794415], ["wing#0", "wing", 0.6931472]],
  own_index_reuse: [["heat#0", "heat", 1.8157604]],
  existing_index: [["wing2", "wing2", 1.6739764], ["wing", "wing", 0.5908618]],
  knn: [["wing2#0", "wing2", 0.93301266], ["wing#0", "wing", 0.8102312]],
};

for (const engine of ENGINES) {
  for (const scenario of Object.keys(SCENARIOS) as ScenarioName[]) {
    Deno.test(`${engine} ${scenario}: the client's requests match the transcript`, async () => {
      await using server = replayServer(await readTranscript(engine, scenario));
      const lines: string[] = [];
      const retriever = await scenarioRetriever(engine, scenario, server.url, {
        progress: (line) => lines.push(line),
      });
      try {
        const s = SCENARIOS[scenario];
        const outcome = await retriever.search(s.query, s.k, signal);
        assert.deepEqual(server.unmatched, []);
        assert.deepEqual(server.unused(), []);
        assert.deepEqual(
          outcome.hits.map((h) => [h.passage.id, h.passage.doc_id, h.score]),
          EXPECTED[scenario],
        );
        assert.ok(server.received.every((r) => r.headers.authorization === BASIC));
        if (scenario === "existing_index") {
          assert.equal(outcome.hits[0].passage.text, "Swept wings stall at the tip first.");
          assert.equal(retriever.passages.length, 0);
        }
        if (scenario === "own_index_reuse") assert.match(lines[0], /reusing index ragbench_/);
        if (scenario === "own_index_bm25") {
          assert.match(lines[0], /indexing 3 passages into ragbench_/);
        }
        if (scenario === "knn") assert.ok(outcome.embedding_tokens >= 0);
      } finally {
        await retriever.close();
      }
    });
  }
}

/** A search answer of `hits` (document ids under `doc_id`). */
function searchReply(engine: EngineKind, hits: Array<[string, number]>, status = 200): Response {
  const headers: Record<string, string> = engine === "elasticsearch"
    ? { "x-elastic-product": "Elasticsearch" }
    : {};
  return json(
    {
      took: 1,
      timed_out: false,
      hits: {
        total: { value: hits.length, relation: "eq" },
        hits: hits.map(([id, score], i) => ({
          _id: `x${i}`,
          _score: score,
          _source: { doc_id: id, body: "text" },
        })),
      },
    },
    status,
    headers,
  );
}

async function failure(promise: Promise<unknown>): Promise<Error & { attempts?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

for (const engine of ENGINES) {
  const search = (url: string, over = {}) =>
    scenarioRetriever(engine, "existing_index", url, { connection: over });
  const site = new RegExp(`^Retriever "engine" \\(${engine}\\) at http://127\\.0\\.0\\.1:\\d+: `);

  Deno.test(`${engine}: a 500 is retried, then the question's error quotes the engine`, async () => {
    await using server = loopback(() =>
      json(
        { error: { type: "search_phase_execution_exception", reason: "all shards failed" } },
        500,
        engine === "elasticsearch" ? { "x-elastic-product": "Elasticsearch" } : {},
      )
    );
    const retriever = await search(server.url, { maxRetries: 1 });
    try {
      const error = await failure(retriever.search("wings", 3, signal));
      assert.match(error.message, site);
      assert.match(
        error.message,
        /answered HTTP 500: search_phase_execution_exception: all shards failed\. \(Gave up after 1 retry\.\)/,
      );
      assert.equal(server.received.length, 2);
      assert.deepEqual((error.attempts as { http_statuses: number[] }).http_statuses, [500, 500]);
    } finally {
      await retriever.close();
    }
  });

  Deno.test(`${engine}: malformed JSON, 50 MB, unknown ids and a missing list are errors`, async () => {
    const cases: Array<[() => Response, RegExp]> = [
      [
        () => new Response("{oops", { headers: headersFor(engine) }),
        /sent a search response that is not JSON/,
      ],
      [() => huge(engine, 50), /sent a search response over 8 MB/],
      [
        () => searchReply(engine, [["wing", 2], ["nobody", 1]]),
        /returned document id "nobody" \(result 2\), which is not one of the run's 3 documents/,
      ],
      [
        () => json({ took: 1 }, 200, headersFor(engine)),
        /sent an unusable search response: it has no hits\.hits list/,
      ],
    ];
    for (const [answer, message] of cases) {
      await using server = loopback(answer);
      const retriever = await search(server.url);
      try {
        const error = await failure(retriever.search("wings", 3, signal));
        assert.match(error.message, site);
        assert.match(error.message, message);
      } finally {
        await retriever.close();
      }
    }
  });

  Deno.test(`${engine}: an engine that is down or too slow is the question's error`, async () => {
    const down = await search(`http://127.0.0.1:${closedPort()}`);
    try {
      const error = await failure(down.search("wings", 3, signal));
      assert.match(error.message, site);
      assert.match(error.message, /could not be reached: connection refused/);
    } finally {
      await down.close();
    }
    let release = () => {};
    const held = new Promise<void>((resolve) => release = resolve);
    await using slow = loopback(async () => {
      await held;
      return searchReply(engine, []);
    });
    const retriever = await search(slow.url, { timeoutMs: 300 });
    try {
      const error = await failure(retriever.search("wings", 3, signal));
      assert.match(error.message, /did not answer within 0\.3 s/);
    } finally {
      release();
      await retriever.close();
    }
  });
  Deno.test(`${engine}: an engine that stalls part-way through a reply is a timeout, not a hang`, async () => {
    // The client stops watching its own timeout once the headers are in (asStream).
    await using server = stallingServer("mid_body");
    const retriever = await search(server.url, { timeoutMs: 300, maxRetries: 1 });
    try {
      const error = await settledWithin(failure(retriever.search("wings", 3, signal)));
      assert.match(error.message, site);
      assert.match(
        error.message,
        /did not answer within 0\.3 s \(its reply stopped part-way\)\. .*\(Gave up after 1 retry\.\)/,
      );
      assert.equal(server.requests, 2);
    } finally {
      await retriever.close();
    }
  });

  Deno.test(`${engine}: Ctrl-C (the question's signal) ends a search stalled part-way`, async () => {
    await using server = stallingServer("mid_body");
    const retriever = await search(server.url, { timeoutMs: 600_000 });
    try {
      const controller = new AbortController();
      const pending = failure(retriever.search("wings", 3, controller.signal));
      assert.ok(await waitUntil(() => server.requests === 1), "the search reached the engine");
      controller.abort();
      const error = await settledWithin(pending);
      assert.match(error.message, site);
      assert.match(error.message, /the request was cancelled\.$/);
    } finally {
      await retriever.close();
    }
  });
}

Deno.test("elasticsearch: a server that is not Elasticsearch is an error, not a crash", async () => {
  await using server = loopback(() => json({ hits: { hits: [] } }));
  const retriever = await scenarioRetriever("elasticsearch", "own_index_bm25", server.url).catch(
    (error: Error) => error,
  );
  assert.ok(retriever instanceof Error);
  assert.match(
    retriever.message,
    /^Retriever "engine" \(elasticsearch\) at http:\/\/127\.0\.0\.1:\d+: failed: .*Elasticsearch/,
  );
});

function headersFor(engine: EngineKind): Record<string, string> {
  return engine === "elasticsearch"
    ? { "content-type": "application/json", "x-elastic-product": "Elasticsearch" }
    : { "content-type": "application/json" };
}

function huge(engine: EngineKind, megabytes: number): Response {
  const chunk = new TextEncoder().encode(" ".repeat(65_536));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= megabytes * 1_048_576) {
        controller.enqueue(new TextEncoder().encode('{"hits":{"hits":[]}}'));
        controller.close();
        return;
      }
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return new Response(body, { headers: headersFor(engine) });
}
