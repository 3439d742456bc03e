import assert from "node:assert/strict";
import { join } from "node:path";
import { EmbeddingCache } from "../../../lib/dense/embedding_cache.ts";
import { createOpenAIEmbedder } from "../../../lib/dense/openai_embedder.ts";
import { startFakeEmbeddingsServer } from "../../support/fake_embeddings_server.ts";
import { tempTree } from "../../support/temp.ts";

const signal = new AbortController().signal;

function embedderAt(baseUrl: string, cache: EmbeddingCache, batchSize = 2) {
  return createOpenAIEmbedder({
    model: "fake-embed",
    baseUrl,
    apiKey: null,
    dimensions: null,
    batchSize,
    maxRetries: 0,
    timeoutMs: 5_000,
    queryPrefix: "query: ",
    passagePrefix: "",
    pricePerMtok: 1,
    cache,
  });
}

const CORPUS = ["alpha beta", "gamma", "delta epsilon", "zeta", "eta theta", "iota"];

Deno.test("the cache stores vectors by embedder, prefix and text", async () => {
  await using tmp = await tempTree();
  using cache = EmbeddingCache.open(join(tmp.dir, "sub", "e.sqlite"));
  const v = new Float32Array([0.5, -1.25, 3]);
  cache.put("m@native", "", [{ text: "hello", vector: v }]);
  assert.deepEqual(cache.get("m@native", "", ["hello", "other"]), [v, null]);
  assert.deepEqual(cache.get("m@8", "", ["hello"]), [null], "another embedder id");
  assert.deepEqual(cache.get("m@native", "query: ", ["hello"]), [null], "another prefix");
});

Deno.test("a re-run over the same corpus makes zero embedding requests", async () => {
  await using tmp = await tempTree();
  await using server = startFakeEmbeddingsServer();
  const path = join(tmp.dir, "embeddings-v1.sqlite");
  let first;
  {
    using cache = EmbeddingCache.open(path);
    first = await embedderAt(server.baseUrl, cache).embed(CORPUS, { kind: "passage", signal });
  }
  assert.equal(server.requests.length, 3);
  assert.equal(first.cached, 0);
  assert.ok(first.tokens > 0);
  {
    using cache = EmbeddingCache.open(path);
    const again = await embedderAt(server.baseUrl, cache).embed(CORPUS, {
      kind: "passage",
      signal,
    });
    assert.equal(server.requests.length, 3, "no new request");
    assert.deepEqual(again.vectors, first.vectors);
    assert.equal(again.cached, CORPUS.length);
    assert.equal(again.tokens, 0);
    assert.equal(again.cost_usd, 0);
    // A query with the same text is another key (another prefix): one request.
    await embedderAt(server.baseUrl, cache).embed(["gamma"], { kind: "query", signal });
    assert.equal(server.requests.length, 4);
  }
});

Deno.test("an interrupted indexing run keeps the batches it paid for", async () => {
  await using tmp = await tempTree();
  const path = join(tmp.dir, "embeddings-v1.sqlite");
  // While `down`, the third request fails: two batches (four texts) were answered before it.
  let down = true;
  await using server = startFakeEmbeddingsServer((_r, i) =>
    down && i === 2 ? { status: 400, json: { error: { message: "boom" } } } : "default"
  );
  {
    using cache = EmbeddingCache.open(path);
    await assert.rejects(
      embedderAt(server.baseUrl, cache).embed(CORPUS, { kind: "passage", signal }),
      /boom/,
    );
  }
  assert.equal(server.requests.length, 3);
  down = false;
  using cache = EmbeddingCache.open(path);
  const resumed = await embedderAt(server.baseUrl, cache).embed(CORPUS, {
    kind: "passage",
    signal,
  });
  assert.equal(server.requests.length, 4, "one request for the unpaid batch");
  assert.deepEqual(server.requests[3].body.input, ["eta theta", "iota"]);
  assert.equal(resumed.cached, 4);
});

Deno.test("two processes writing the same cache at once both keep all their rows", async () => {
  await using tmp = await tempTree();
  const path = join(tmp.dir, "embeddings-v1.sqlite");
  const script = join(tmp.dir, "writer.ts");
  const module = new URL("../../../lib/dense/embedding_cache.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { EmbeddingCache } from "${module}";
const [path, tag] = Deno.args;
const cache = EmbeddingCache.open(path);
for (let b = 0; b < 40; b++) {
  cache.put("m", "", Array.from({ length: 25 }, (_, i) => ({
    text: tag + ":" + (b * 25 + i),
    vector: new Float32Array([b, i]),
  })));
}
cache.close();
`,
  );
  const run = (tag: string) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-check",
        // The script is outside the repository: it needs the repository's import map.
        `--config=${new URL("../../../deno.json", import.meta.url).pathname}`,
        `--allow-read=${tmp.dir},${new URL("../../../", import.meta.url).pathname}`,
        `--allow-write=${tmp.dir}`,
        script,
        path,
        tag,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
  const results = await Promise.all([run("a"), run("b")]);
  for (const r of results) assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  using cache = EmbeddingCache.open(path);
  for (const tag of ["a", "b"]) {
    const texts = Array.from({ length: 1000 }, (_, i) => `${tag}:${i}`);
    const got = cache.get("m", "", texts);
    assert.equal(got.filter((v) => v !== null).length, 1000, tag);
    assert.deepEqual(got[999], new Float32Array([39, 24]));
  }
});

Deno.test("a cache path that cannot be opened is a clear error naming it and what to do", async () => {
  await using tmp = await tempTree({ "blocker": "a file where a folder should be" });
  const path = join(tmp.dir, "blocker", "embeddings-v1.sqlite");
  assert.throws(
    () => EmbeddingCache.open(path),
    new RegExp(`Cannot open the embedding cache "${path}": .*--cache-dir DIR`),
  );
  await Deno.writeTextFile(
    join(tmp.dir, "junk.sqlite"),
    "not a database, not at all, no".repeat(40),
  );
  assert.throws(
    () => EmbeddingCache.open(join(tmp.dir, "junk.sqlite")),
    /Cannot open the embedding cache .*junk\.sqlite": file is not a database/,
  );
});
