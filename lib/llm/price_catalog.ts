/**
 * The price catalog: list prices of chat and embedding models from
 * `@pydantic/genai-prices` (MIT licence, maintained by Pydantic), pinned in
 * `deno.json` and shipped with its data, so a lookup makes no request and
 * needs no permission. Its ~830 KB module costs ~60 ms of CPU to load, so it
 * is loaded ({@link loadPriceCatalog}) only when some model or embedding of
 * a run has no `price` in the config.
 *
 * A name is looked up the way a request to it is routed:
 *
 * 1. at OpenAI's API (`base_url` null): among OpenAI's models;
 * 2. at another `base_url`: the provider whose API that URL is (Groq,
 *    OpenRouter, Together, ...);
 * 3. by the name alone: a `provider/model` name (`openai/gpt-4o`, as a
 *    LiteLLM proxy takes it) under that provider, else the provider whose
 *    models the name looks like (a proxy passing `claude-sonnet-4` on);
 * 4. among OpenAI's models (an OpenAI-compatible proxy serving their names).
 *
 * The catalog matches dated snapshots (`gpt-4o-2024-08-06` is `gpt-4o`). A
 * model it prices by tiers (long-context rates) gets its base rate; a price
 * that depends on the date or the hour is taken at the time the catalog was
 * loaded (the start of the run). Discounts (cached input, batch) are not used.
 *
 * @module
 */

/**
 * The catalog's package and version, as `deno.json` pins it (a test holds
 * the two equal). Recorded in `run.json`.
 */
export const PRICE_CATALOG = "@pydantic/genai-prices@0.1.8";

/** Names longer than this are not looked up (no catalog pattern is run on a huge string). */
const MAX_NAME_LENGTH = 200;

/** A chat model's catalog price, US dollars per million tokens. */
export interface CatalogChatPrice {
  input_per_mtok: number;
  output_per_mtok: number;
  /** The catalog entry that matched, `provider/model` (e.g. `openai/gpt-4o`). */
  entry: string;
}

/** An embedding model's catalog price, US dollars per million input tokens. */
export interface CatalogEmbeddingPrice {
  per_mtok: number;
  /** The catalog entry that matched, `provider/model`. */
  entry: string;
}

/** A loaded catalog. Lookups are synchronous and never throw. */
export interface PriceCatalog {
  /** {@link PRICE_CATALOG}. */
  readonly name: string;
  /** The price of chat model `name` served at `baseUrl` (null: OpenAI's API); null when unknown. */
  chat(name: string, baseUrl: string | null): CatalogChatPrice | null;
  /** The price of embedding model `name` served at `baseUrl`; null when unknown. */
  embedding(name: string, baseUrl: string | null): CatalogEmbeddingPrice | null;
}

/** What a catalog lookup returns: the rates per million tokens by unit, and the entry. */
interface Found {
  rates: Record<string, unknown>;
  entry: string;
}

type CalcPrice = typeof import("@pydantic/genai-prices").calcPrice;

/**
 * Loads the catalog. `now` is the moment prices are taken at (default: now).
 */
export async function loadPriceCatalog(options: { now?: Date } = {}): Promise<PriceCatalog> {
  const { calcPrice } = await import("@pydantic/genai-prices");
  return catalogOver(calcPrice, options.now ?? new Date());
}

/** A catalog over the package's `calcPrice` (exported for tests). */
export function catalogOver(calcPrice: CalcPrice, now: Date): PriceCatalog {
  function find(name: string, baseUrl: string | null): Found | null {
    if (name.length === 0 || name.length > MAX_NAME_LENGTH) return null;
    const attempts: Array<{ providerId?: string; providerApiUrl?: string }> = baseUrl === null
      ? [{ providerId: "openai" }, { providerId: "litellm" }]
      : [{ providerApiUrl: baseUrl }, { providerId: "litellm" }, { providerId: "openai" }];
    for (const attempt of attempts) {
      let result;
      try {
        result = calcPrice({ input_tokens: 0, output_tokens: 0 }, name, {
          ...attempt,
          timestamp: now,
        });
      } catch {
        result = null;
      }
      if (result) {
        return {
          rates: result.model_price as Record<string, unknown>,
          entry: `${result.provider.id}/${result.model.id}`,
        };
      }
    }
    return null;
  }
  return {
    name: PRICE_CATALOG,
    chat(name, baseUrl) {
      const found = find(name, baseUrl);
      if (found === null) return null;
      const input = rate(found.rates.input_mtok);
      const output = rate(found.rates.output_mtok);
      if (input === null || output === null) return null;
      return { input_per_mtok: input, output_per_mtok: output, entry: found.entry };
    },
    embedding(name, baseUrl) {
      const found = find(name, baseUrl);
      if (found === null) return null;
      const input = rate(found.rates.input_mtok);
      return input === null ? null : { per_mtok: input, entry: found.entry };
    },
  };
}

/** A rate per million tokens: a number, or a tiered price's base rate; null otherwise. */
function rate(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value === "object" && value !== null && "base" in value) {
    return rate((value as { base: unknown }).base);
  }
  return null;
}
