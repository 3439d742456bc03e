/**
 * What a run pays per token for each model and embedding model it uses: the
 * config's `price` (chat models, `model.price`) or `price_per_mtok`
 * (embedding models) when given, else the price catalog's list price
 * (price_catalog.ts), else **unknown**. An unknown price is never taken as
 * $0: the calls' cost is null (an empty cell, `?` in the console table),
 * `validate` and `run` warn naming the model and the key to set, and a live
 * run with a cost cap refuses to start (lib/plan/price_checks.ts).
 *
 * {@link resolvePrices} looks every price up once, before the run starts;
 * the catalog is loaded only when some price is not in the config.
 *
 * @module
 */

import type { ModelConfig } from "./model_config.ts";
import type { Pricing } from "./model.ts";
import { loadPriceCatalog, PRICE_CATALOG, type PriceCatalog } from "./price_catalog.ts";

/** Where a price came from: the config, the catalog, or nowhere (unknown). */
export type PriceSource = "config" | "catalog" | "unknown";

/** A chat model's price, and where it came from. */
export interface ModelPrice {
  /** US dollars per million tokens; null when unknown. */
  pricing: Pricing | null;
  source: PriceSource;
  /** The catalog entry used (`provider/model`), when the price came from the catalog. */
  entry: string | null;
}

/** An embedding model's price, and where it came from. */
export interface EmbeddingPrice {
  /** US dollars per million input tokens; null when unknown. */
  per_mtok: number | null;
  source: PriceSource;
  /** The catalog entry used (`provider/model`), when the price came from the catalog. */
  entry: string | null;
}

/** What decides a chat model's price. */
export type PricedModel = Pick<ModelConfig, "name" | "base_url" | "price">;
/** What decides an embedding model's price. */
export interface PricedEmbedding {
  model: string;
  base_url: string | null;
  price_per_mtok: number | null;
}

/** The prices of one run's models, looked up once. */
export interface RunPrices {
  /** The catalog's name@version ({@link PRICE_CATALOG}), consulted or not. */
  readonly catalog: string;
  /**
   * The price of a model config given to {@link resolvePrices}.
   *
   * @throws {TypeError} for a config without `price` that was not resolved.
   */
  model(config: PricedModel): ModelPrice;
  /**
   * The price of an embedding config given to {@link resolvePrices}.
   *
   * @throws {TypeError} for a config without `price_per_mtok` that was not resolved.
   */
  embedding(config: PricedEmbedding): EmbeddingPrice;
}

/** Options of {@link resolvePrices}. */
export interface ResolvePricesOptions {
  /** Loads the catalog (default {@link loadPriceCatalog}); called at most once, only when needed. */
  catalog?: () => Promise<PriceCatalog>;
}

/**
 * Looks up the price of every model and embedding model a run uses. The
 * catalog is loaded only if one of them has no price in the config.
 */
export async function resolvePrices(
  models: readonly PricedModel[],
  embeddings: readonly PricedEmbedding[],
  options: ResolvePricesOptions = {},
): Promise<RunPrices> {
  const modelsToFind = models.filter((m) => m.price === undefined);
  const embeddingsToFind = embeddings.filter((e) => e.price_per_mtok === null);
  const catalog = modelsToFind.length + embeddingsToFind.length === 0
    ? null
    : await (options.catalog ?? loadPriceCatalog)();
  const chat = new Map<string, ModelPrice>();
  for (const m of modelsToFind) {
    const found = catalog?.chat(m.name, m.base_url) ?? null;
    chat.set(
      modelPriceKey(m),
      found === null ? { pricing: null, source: "unknown", entry: null } : {
        pricing: { input_per_mtok: found.input_per_mtok, output_per_mtok: found.output_per_mtok },
        source: "catalog",
        entry: found.entry,
      },
    );
  }
  const embedding = new Map<string, EmbeddingPrice>();
  for (const e of embeddingsToFind) {
    const found = catalog?.embedding(e.model, e.base_url) ?? null;
    embedding.set(
      embeddingPriceKey(e),
      found === null
        ? { per_mtok: null, source: "unknown", entry: null }
        : { per_mtok: found.per_mtok, source: "catalog", entry: found.entry },
    );
  }
  return {
    catalog: PRICE_CATALOG,
    model(config) {
      if (config.price !== undefined) {
        return { pricing: { ...config.price }, source: "config", entry: null };
      }
      const found = chat.get(modelPriceKey(config));
      if (found === undefined) throw new TypeError(`no price was resolved for "${config.name}"`);
      return { ...found, pricing: found.pricing && { ...found.pricing } };
    },
    embedding(config) {
      if (config.price_per_mtok !== null) {
        return { per_mtok: config.price_per_mtok, source: "config", entry: null };
      }
      const found = embedding.get(embeddingPriceKey(config));
      if (found === undefined) throw new TypeError(`no price was resolved for "${config.model}"`);
      return { ...found };
    },
  };
}

/** Prices known without any lookup: only what the config gives (for tests and tools that run no model). */
export function configPrices(): RunPrices {
  return {
    catalog: PRICE_CATALOG,
    model: (config) =>
      config.price === undefined
        ? { pricing: null, source: "unknown", entry: null }
        : { pricing: { ...config.price }, source: "config", entry: null },
    embedding: (config) =>
      config.price_per_mtok === null
        ? { per_mtok: null, source: "unknown", entry: null }
        : { per_mtok: config.price_per_mtok, source: "config", entry: null },
  };
}

function modelPriceKey(config: PricedModel): string {
  return JSON.stringify([config.name, config.base_url]);
}

function embeddingPriceKey(config: PricedEmbedding): string {
  return JSON.stringify([config.model, config.base_url]);
}
