import assert from "node:assert/strict";
import { join } from "node:path";
import { embeddingSchema } from "../../../lib/config/retriever_schema.ts";
import { createEmbedderPool, effectiveEmbedding } from "../../../lib/dense/embedders.ts";
import { startFakeEmbeddingsServer } from "../../support/fake_embeddings_server.ts";
import { tempTree } from "../../support/temp.ts";

const signal = new AbortController().signal;

Deno.test("--mock replaces openai embedders by hashing ones with the same dimensions, or 384", () => {
  const openai = embeddingSchema.parse({ dimensions: 256 });
  assert.deepEqual(effectiveEmbedding(openai, true), { ...openai, provider: "hashing" });
  assert.equal(effectiveEmbedding(embeddingSchema.parse({}), true).dimensions, 384);
  assert.equal(effectiveEmbedding(openai, false), openai);
});

Deno.test("the mock pool says so once, uses no cache and makes no request", async () => {
  const lines: string[] = [];
  using pool = createEmbedderPool({
    mock: true,
    cacheDir: () => assert.fail("a mock run must not look for the cache"),
    onProgress: (line) => lines.push(line),
  });
  const a = pool.embedderFor(embeddingSchema.parse({ base_url: "http://127.0.0.1:9/v1" }));
  const b = pool.embedderFor(embeddingSchema.parse({ base_url: "http://127.0.0.1:9/v1" }));
  assert.equal(a, b, "equal configs share one embedder");
  assert.equal(a.id, "hashing:v1:384");
  assert.equal((await a.embed(["x"], { kind: "query", signal })).dimensions, 384);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /--mock: openai embedders are replaced by the offline hashing embedder/);
});

Deno.test("the pool opens the cache under the cache folder and reads the key from the named variable", async () => {
  await using tmp = await tempTree();
  await using server = startFakeEmbeddingsServer();
  const lines: string[] = [];
  using pool = createEmbedderPool({
    mock: false,
    cacheDir: () => join(tmp.dir, "c"),
    env: (name) => name === "MY_EMBED_KEY" ? "sk-abc-123456" : undefined,
    onProgress: (line) => lines.push(line),
  });
  const config = embeddingSchema.parse({
    base_url: server.baseUrl,
    model: "m",
    api_key_env: "MY_EMBED_KEY",
  });
  await pool.embedderFor(config).embed(["a b"], { kind: "passage", signal });
  assert.equal(server.requests[0].headers.authorization, "Bearer sk-abc-123456");
  assert.deepEqual(lines, [`embedding cache: ${join(tmp.dir, "c", "embeddings-v1.sqlite")}`]);
  await Deno.stat(join(tmp.dir, "c", "embeddings-v1.sqlite"));
  // A hashing embedder needs no cache: a pool asked only for one never opens it.
  using offline = createEmbedderPool({
    mock: false,
    cacheDir: () => assert.fail("hashing is not cached"),
  });
  offline.embedderFor(embeddingSchema.parse({ provider: "hashing", dimensions: 64 }));
});
