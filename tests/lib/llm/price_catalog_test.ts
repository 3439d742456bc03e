import assert from "node:assert/strict";
import { loadPriceCatalog, PRICE_CATALOG } from "../../../lib/llm/price_catalog.ts";

Deno.test("PRICE_CATALOG names the package and version deno.json pins", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../../deno.json", import.meta.url)),
  ) as { imports: Record<string, string> };
  assert.equal(`npm:${PRICE_CATALOG}`, config.imports["@pydantic/genai-prices"]);
});

Deno.test("the catalog prices dated snapshots, provider-prefixed names and hosted providers; an unknown name is null", async () => {
  const catalog = await loadPriceCatalog({ now: new Date("2026-06-01T00:00:00Z") });
  const gpt4o = { input_per_mtok: 2.5, output_per_mtok: 10 };
  assert.deepEqual(catalog.chat("gpt-4o", null), { ...gpt4o, entry: "openai/gpt-4o" });
  assert.deepEqual(catalog.chat("gpt-4o-2024-08-06", null), { ...gpt4o, entry: "openai/gpt-4o" });
  // Behind a proxy (LiteLLM and the like) at a loopback address.
  const proxy = "http://127.0.0.1:4000/v1";
  assert.deepEqual(catalog.chat("openai/gpt-4o", proxy), { ...gpt4o, entry: "openai/gpt-4o" });
  assert.deepEqual(catalog.chat("gpt-4o-2024-08-06", proxy)?.entry, "openai/gpt-4o");
  assert.match(catalog.chat("claude-sonnet-4", proxy)?.entry ?? "", /^anthropic\//);
  // A hosted provider known by its API URL.
  assert.equal(
    catalog.chat("llama-3.1-8b-instant", "https://api.groq.com/openai/v1")?.entry,
    "groq/llama-3.1-8b-instant",
  );
  assert.deepEqual(catalog.embedding("text-embedding-3-small", null), {
    per_mtok: 0.02,
    entry: "openai/text-embedding-3-small",
  });
  for (
    const name of [
      "house-model-7b",
      "llama3.1:8b",
      "",
      "__proto__",
      "constructor",
      "x".repeat(5000),
    ]
  ) {
    assert.equal(catalog.chat(name, proxy), null, name);
    assert.equal(catalog.embedding(name, null), null, name);
  }
  assert.equal(catalog.embedding("nomic-embed-text", "http://127.0.0.1:11434/v1"), null);
});

Deno.test("loading the catalog needs no permission and makes no request", async () => {
  // `deno run` with no permission flag (and --no-prompt): any read, net or env access fails.
  const run = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      new URL("../../fixtures/price_catalog_probe.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  });
  const output = await run.output();
  const text = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.deepEqual(JSON.parse(text), {
    input_per_mtok: 0.15,
    output_per_mtok: 0.6,
    entry: "openai/gpt-4o-mini",
  });
});
