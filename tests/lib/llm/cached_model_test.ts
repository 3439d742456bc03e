import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { CacheMode } from "../../../lib/cache/cache_mode.ts";
import { openResponseCache, type ResponseCache } from "../../../lib/cache/response_cache.ts";
import {
  emptyCacheStats,
  ReplayMissError,
  withResponseCache,
} from "../../../lib/llm/cached_model.ts";
import type { ChatRequest, Model } from "../../../lib/llm/model.ts";
import { OPENAI_BASE_URL } from "../../../lib/llm/openai_model.ts";
import { tempTree } from "../../support/temp.ts";

const KEY = {
  provider: "openai",
  base_url: "http://127.0.0.1:1/v1",
  model: "m",
  params: { temperature: 0, max_tokens: null },
};
const ASK: ChatRequest = { messages: [{ role: "user", content: "q" }], tools: [] };

/** A model that counts its calls and answers with the call number. */
function countingModel(): Model & { calls: number } {
  const model = {
    id: "openai:m",
    pricing: { input_per_mtok: 1, output_per_mtok: 1 },
    calls: 0,
    chat() {
      model.calls++;
      return Promise.resolve({
        content: `answer ${model.calls}`,
        tool_calls: [],
        usage: { input_tokens: 10, output_tokens: 2 },
        attempts: { retries: 0, http_statuses: [], backoff_ms: 0 },
      });
    },
  };
  return model;
}

function wrap(model: Model, cache: ResponseCache, mode: CacheMode) {
  const stats = emptyCacheStats();
  return { model: withResponseCache(model, { cache, mode, key: KEY, stats }), stats };
}

const signal = () => AbortSignal.timeout(5000);

Deno.test("read-write records a miss and reuses it: the second call is served from the cache", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const inner = countingModel();
    const { model, stats } = wrap(inner, cache, "read-write");
    const first = await model.chat(ASK, signal());
    const second = await model.chat(ASK, signal());
    assert.equal(inner.calls, 1);
    assert.equal(first.cached, undefined);
    assert.deepEqual(second, {
      content: "answer 1",
      tool_calls: [],
      usage: { input_tokens: 10, output_tokens: 2 },
      cached: true,
    });
    assert.deepEqual(stats, { hits: 1, misses: 1, corrupt: 0, recorded: 1, writeFailures: 0 });
  } finally {
    cache.close();
  }
});

Deno.test("read does not record, write does not reuse, replay never calls the model", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const inner = countingModel();
    await wrap(inner, cache, "read").model.chat(ASK, signal());
    await wrap(inner, cache, "read").model.chat(ASK, signal());
    assert.equal(inner.calls, 2, "read records nothing");
    await wrap(inner, cache, "write").model.chat(ASK, signal());
    const rewritten = await wrap(inner, cache, "write").model.chat(ASK, signal());
    assert.equal(inner.calls, 4, "write always calls");
    assert.equal(rewritten.content, "answer 4");
    const replayed = await wrap(inner, cache, "replay").model.chat(ASK, signal());
    assert.equal(inner.calls, 4);
    assert.equal(replayed.content, "answer 4", "the latest recording wins");
    const other: ChatRequest = { messages: [{ role: "user", content: "other" }], tools: [] };
    await assert.rejects(
      wrap(inner, cache, "replay").model.chat(other, signal()),
      (e) => e instanceof ReplayMissError && !e.corrupt,
    );
    assert.equal(inner.calls, 4);
  } finally {
    cache.close();
  }
});

Deno.test("a corrupt or ill-shaped entry is a miss in read-write (and re-recorded) and a corrupt miss in replay", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  const inner = countingModel();
  const { model } = wrap(inner, cache, "read-write");
  await model.chat(ASK, signal());
  cache.close();
  const db = new DatabaseSync(cache.path);
  db.exec(`UPDATE responses SET value = '{"content": 5, "tool_calls": "x"}'`);
  db.close();
  const reopened = openResponseCache(t.dir);
  try {
    await assert.rejects(
      wrap(inner, reopened, "replay").model.chat(ASK, signal()),
      (e) => e instanceof ReplayMissError && e.corrupt,
    );
    const again = wrap(inner, reopened, "read-write");
    const reply = await again.model.chat(ASK, signal());
    assert.equal(reply.content, "answer 2");
    assert.deepEqual([again.stats.corrupt, again.stats.recorded], [1, 1]);
    assert.equal(
      (await wrap(inner, reopened, "replay").model.chat(ASK, signal())).content,
      "answer 2",
    );
  } finally {
    reopened.close();
  }
});

Deno.test("the cache's default base URL is the OpenAI client's", async () => {
  const source = await Deno.readTextFile(
    new URL("../../../lib/llm/cached_model.ts", import.meta.url),
  );
  assert.ok(source.includes(`const DEFAULT_BASE_URL = "${OPENAI_BASE_URL}";`));
});

/** A model whose calls wait until `release` (each call's number is its answer). */
function heldModel() {
  let release!: (fail: boolean) => void;
  const gate = new Promise<boolean>((resolve) => release = resolve);
  const model = {
    id: "openai:m",
    pricing: { input_per_mtok: 1, output_per_mtok: 1 },
    calls: 0,
    async chat() {
      const n = ++model.calls;
      if (n === 1 && await gate) throw new Error("connection reset");
      return {
        content: `answer ${n}`,
        tool_calls: [],
        usage: { input_tokens: 10, output_tokens: 2 },
        attempts: { retries: 1, http_statuses: [500], backoff_ms: 5 },
      };
    },
  };
  return { model, release };
}

Deno.test("an identical request sent while its twin is in flight is served the twin's reply as a hit, whatever the concurrency", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const held = heldModel();
    const { model, stats } = wrap(held.model, cache, "read-write");
    const first = model.chat(ASK, signal());
    const second = model.chat(ASK, signal());
    held.release(false);
    const [a, b] = await Promise.all([first, second]);
    assert.equal(held.model.calls, 1, "one live call for the two twins");
    assert.equal(a.content, "answer 1");
    assert.deepEqual(b, {
      content: "answer 1",
      tool_calls: [],
      usage: { input_tokens: 10, output_tokens: 2 },
      cached: true,
    });
    assert.deepEqual(stats, { hits: 1, misses: 1, corrupt: 0, recorded: 1, writeFailures: 0 });
    // What was recorded is what both got: a replay serves it to both.
    const replay = wrap(countingModel(), cache, "replay").model;
    assert.equal((await replay.chat(ASK, signal())).content, "answer 1");
  } finally {
    cache.close();
  }
});

Deno.test("when the in-flight twin fails, the waiting request makes its own call", async () => {
  await using t = await tempTree();
  const cache = openResponseCache(t.dir);
  try {
    const held = heldModel();
    const { model } = wrap(held.model, cache, "read-write");
    const first = model.chat(ASK, signal());
    const second = model.chat(ASK, signal());
    held.release(true);
    await assert.rejects(first, /connection reset/);
    const b = await second;
    assert.equal(held.model.calls, 2);
    assert.equal(b.content, "answer 2");
    assert.equal(b.cached, undefined);
  } finally {
    cache.close();
  }
});
