import assert from "node:assert/strict";
import { embeddingSchema } from "../../../lib/config/retriever_schema.ts";
import { embeddingNeeds } from "../../../lib/plan/embedding_needs.ts";
import { permissionFlags } from "../../../lib/plan/permissions.ts";

const env = (name: string) => ({ HOME: "/home/u" } as Record<string, string>)[name];

Deno.test("an openai embedder outside --mock needs its host, key variable and the cache folder", () => {
  const needs = embeddingNeeds([
    embeddingSchema.parse({ base_url: "http://127.0.0.1:11434/v1", api_key_env: null }),
    embeddingSchema.parse({}),
  ], { mock: false, env });
  assert.deepEqual(permissionFlags(needs, "/elsewhere"), [
    "--allow-read=/home/u/.cache/ragbench",
    "--allow-write=/home/u/.cache/ragbench",
    "--allow-env=OPENAI_API_KEY,RAGBENCH_CACHE_DIR,XDG_CACHE_HOME,HOME",
    "--allow-net=127.0.0.1:11434,api.openai.com:443",
  ]);
});

Deno.test("--cache-dir needs no environment variable to find the cache", () => {
  const needs = embeddingNeeds([embeddingSchema.parse({ api_key_env: null })], {
    mock: false,
    cacheDir: "/tmp/c",
    env: () => assert.fail("no variable may be read"),
  });
  assert.deepEqual(permissionFlags(needs, "/elsewhere"), [
    "--allow-read=/tmp/c",
    "--allow-write=/tmp/c",
    "--allow-net=api.openai.com:443",
  ]);
});

Deno.test("hashing embedders, and every embedder in --mock, need nothing", () => {
  const none = () => assert.fail("no variable may be read");
  assert.deepEqual(
    embeddingNeeds([embeddingSchema.parse({ provider: "hashing" })], { mock: false, env: none }),
    [],
  );
  assert.deepEqual(embeddingNeeds([embeddingSchema.parse({})], { mock: true, env: none }), []);
});

Deno.test("--cache replay: an openai embedder needs the cache folder, not its host or key", () => {
  const needs = embeddingNeeds([
    embeddingSchema.parse({ base_url: "http://127.0.0.1:11434/v1", api_key_env: "EMBED_KEY" }),
  ], { mock: false, replay: true, cacheDir: "/tmp/c" });
  assert.deepEqual(permissionFlags(needs, "/elsewhere"), [
    "--allow-read=/tmp/c",
    "--allow-write=/tmp/c",
  ]);
});
