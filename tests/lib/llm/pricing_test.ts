import assert from "node:assert/strict";
import { addCost, costOf } from "../../../lib/llm/model.ts";
import { configPrices, resolvePrices } from "../../../lib/llm/pricing.ts";
import { PRICE_CATALOG, type PriceCatalog } from "../../../lib/llm/price_catalog.ts";

/** A catalog that knows one chat and one embedding model, and counts its loads. */
function fakeCatalog() {
  let loads = 0;
  const catalog: PriceCatalog = {
    name: PRICE_CATALOG,
    chat: (name) =>
      name === "known" ? { input_per_mtok: 1, output_per_mtok: 2, entry: "p/known" } : null,
    embedding: (name) => name === "embed" ? { per_mtok: 0.5, entry: "p/embed" } : null,
  };
  return {
    load: () => {
      loads++;
      return Promise.resolve(catalog);
    },
    loads: () => loads,
  };
}

const model = (name: string, price?: { input_per_mtok: number; output_per_mtok: number }) => ({
  name,
  base_url: null,
  ...(price ? { price } : {}),
});
const embedding = (name: string, price: number | null = null) => ({
  model: name,
  base_url: null,
  price_per_mtok: price,
});

Deno.test("a price comes from the config, else the catalog, else it is unknown (never 0)", async () => {
  const fake = fakeCatalog();
  const prices = await resolvePrices(
    [
      model("known"),
      model("house-model"),
      model("house-model", { input_per_mtok: 0, output_per_mtok: 0 }),
    ],
    [embedding("embed"), embedding("house-embed"), embedding("house-embed", 0.01)],
    { catalog: fake.load },
  );
  assert.equal(fake.loads(), 1);
  assert.equal(prices.catalog, PRICE_CATALOG);
  assert.deepEqual(prices.model(model("known")), {
    pricing: { input_per_mtok: 1, output_per_mtok: 2 },
    source: "catalog",
    entry: "p/known",
  });
  assert.deepEqual(prices.model(model("house-model")), {
    pricing: null,
    source: "unknown",
    entry: null,
  });
  assert.deepEqual(
    prices.model(model("house-model", { input_per_mtok: 0, output_per_mtok: 0 })),
    { pricing: { input_per_mtok: 0, output_per_mtok: 0 }, source: "config", entry: null },
  );
  // The config's price overrides the catalog's.
  assert.deepEqual(
    prices.model(model("known", { input_per_mtok: 5, output_per_mtok: 6 })).pricing,
    { input_per_mtok: 5, output_per_mtok: 6 },
  );
  assert.deepEqual(prices.embedding(embedding("embed")), {
    per_mtok: 0.5,
    source: "catalog",
    entry: "p/embed",
  });
  assert.equal(prices.embedding(embedding("house-embed")).per_mtok, null);
  assert.equal(prices.embedding(embedding("house-embed", 0.01)).per_mtok, 0.01);
  assert.throws(() => prices.model(model("never-asked")), TypeError);
});

Deno.test("the catalog is not loaded when the config prices every model", async () => {
  const fake = fakeCatalog();
  const prices = await resolvePrices(
    [model("a", { input_per_mtok: 1, output_per_mtok: 1 })],
    [embedding("e", 0)],
    { catalog: fake.load },
  );
  assert.equal(fake.loads(), 0);
  assert.equal(
    prices.model(model("a", { input_per_mtok: 1, output_per_mtok: 1 })).source,
    "config",
  );
  assert.equal(configPrices().model(model("x")).pricing, null);
});

Deno.test("a cost at an unknown price is unknown, and so is any sum that includes it", () => {
  const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000 };
  assert.equal(costOf(usage, { input_per_mtok: 0.15, output_per_mtok: 0.6 }), 0.75);
  assert.equal(costOf(usage, null), null);
  assert.equal(addCost(1, 2), 3);
  assert.equal(addCost(1, null), null);
  assert.equal(addCost(null, 0), null);
});
