/**
 * Prices before a run starts: every model and embedding model the systems
 * use is priced once (lib/llm/pricing.ts); each one with no known price is
 * named in a warning (by `validate` and `run`) with the config key that
 * gives it; and a live run with a cost cap (`evaluation.max_cost_usd`, or a
 * system's own `max_cost_usd`) is refused while a price it would have to
 * count is unknown, since the cap could never fire. A `--mock` run (its
 * dollars are simulated) and a `--cache replay` run (it sends nothing) are
 * never refused.
 *
 * @module
 */

import type { Config } from "../config/types.ts";
import type { ModelConfig } from "../config/schema.ts";
import type { EmbeddingConfig, RetrieverConfig } from "../config/retriever_schema.ts";
import { kindOf } from "../retrieval/kinds/registry.ts";
import { RagbenchError } from "../errors.ts";
import { resolvePrices, type ResolvePricesOptions, type RunPrices } from "../llm/pricing.ts";
import { usesEndpoint } from "../dense/embedders.ts";
import type { ManifestPrices } from "../run/manifest.ts";
import { systemRetrievers } from "./embedding_needs.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { modelCallsOf } from "../../systems/system.ts";

/** Whether a system of `config` may call its model (a `retrieval_only` system never does). */
function callsModel(system: Config["systems"][number]): boolean {
  const def = SYSTEMS.get(system.type);
  return def === undefined || modelCallsOf(def, system.options).max > 0;
}

/** A model or embedding model of the run with no known price. */
export interface Unpriced {
  kind: "model" | "embedding";
  /** The model's name. */
  name: string;
  /** Its `base_url` (null: the provider's default). */
  baseUrl: string | null;
  /** The systems that use it. */
  systems: string[];
  /** How the config gives its price, e.g. `model.price: {input_per_mtok: N, output_per_mtok: N}`. */
  give: string;
}

/** The embedding configs a run calls an endpoint with (none in `--mock`, where they are hashed). */
function endpointEmbeddings(config: Config, mock: boolean): EmbeddingConfig[] {
  return systemRetrievers(config).flatMap((u) => calledEmbeddings(u.retriever.config, mock));
}

/** The embeddings a retriever's kind calls an endpoint with (none in `--mock`). */
function calledEmbeddings(config: RetrieverConfig, mock: boolean): EmbeddingConfig[] {
  return kindOf(config).embeddings(config).filter((e) => usesEndpoint(e, mock));
}

/**
 * Prices every model of `config` (the run's `model:` and each system's) and,
 * outside `--mock`, every embedding model its retrievers call.
 */
export function priceRun(
  config: Config,
  options: { mock: boolean } & ResolvePricesOptions,
): Promise<RunPrices> {
  const models: ModelConfig[] = [config.model, ...config.systems.map((s) => s.model)];
  return resolvePrices(models, endpointEmbeddings(config, options.mock), options);
}

/** The models and embedding models of `config` whose price is unknown, each once. */
export function unpricedOf(
  config: Config,
  prices: RunPrices,
  options: { mock: boolean },
): Unpriced[] {
  const found = new Map<string, Unpriced>();
  const note = (entry: Omit<Unpriced, "systems">, system: string) => {
    const id = JSON.stringify([entry.kind, entry.name, entry.baseUrl, entry.give]);
    const known = found.get(id);
    if (known) known.systems.push(system);
    else found.set(id, { ...entry, systems: [system] });
  };
  for (const system of config.systems) {
    if (!callsModel(system) || prices.model(system.model).pricing !== null) continue;
    const own = system.model !== config.model;
    note({
      kind: "model",
      name: system.model.name,
      baseUrl: system.model.base_url,
      give: own
        ? `model: {price: {input_per_mtok: N, output_per_mtok: N}} in system ${system.name}`
        : "model.price: {input_per_mtok: N, output_per_mtok: N}",
    }, system.name);
  }
  for (const { system, retriever } of systemRetrievers(config)) {
    for (const embedding of calledEmbeddings(retriever.config, options.mock)) {
      if (prices.embedding(embedding).per_mtok !== null) continue;
      note({
        kind: "embedding",
        name: embedding.model,
        baseUrl: embedding.base_url,
        give: retriever.key.startsWith("inline:")
          ? `embedding: {price_per_mtok: N} in the retriever: of system ${system}`
          : `retrievers.${retriever.name}.embedding.price_per_mtok: N`,
      }, system);
    }
  }
  return [...found.values()];
}

/** One warning per unknown price, naming the model, its systems and the key to set. */
export function priceWarnings(unpriced: readonly Unpriced[], catalog: string): string[] {
  return unpriced.map((u) => {
    const where = u.baseUrl === null ? "" : ` at ${u.baseUrl}`;
    const what = u.kind === "model" ? "model" : "embedding model";
    return `no price is known for ${what} "${u.name}"${where} (systems ${
      u.systems.join(", ")
    }; not in the config nor in the price catalog ${catalog}), so its cost is unknown: ` +
      `cost columns stay empty (never $0) and the console shows "?". Give it as ${u.give} ` +
      "(US dollars per million tokens; 0 for a model you host yourself).";
  });
}

/**
 * Refuses a live run whose cost cap would have to count a cost it cannot
 * know: `evaluation.max_cost_usd` with any unknown price, or a system's own
 * `max_cost_usd` with an unknown price of a model or embedding it uses.
 *
 * @throws {RagbenchError} ("config", exit 2) naming each price to give.
 */
export function checkCostCaps(
  config: Config,
  unpriced: readonly Unpriced[],
  options: { mock: boolean; replay: boolean },
): void {
  if (options.mock || options.replay || unpriced.length === 0) return;
  const problems: string[] = [];
  const cap = config.evaluation.max_cost_usd;
  for (const u of unpriced) {
    const capped = config.systems.filter((s) =>
      u.systems.includes(s.name) && typeof s.options.max_cost_usd === "number"
    ).map((s) => s.name);
    if (cap === null && capped.length === 0) continue;
    const caps = [
      ...(cap === null ? [] : [`evaluation.max_cost_usd (${cap})`]),
      ...capped.map((s) => `system ${s}'s max_cost_usd`),
    ].join(" and ");
    problems.push(
      `no price is known for ${u.kind === "model" ? "model" : "embedding model"} "${u.name}" ` +
        `(systems ${u.systems.join(", ")}), so ${caps} could never count its cost. ` +
        `Give it as ${u.give} (US dollars per million tokens; 0 for a model you host yourself).`,
    );
  }
  if (problems.length === 0) return;
  throw new RagbenchError(
    "config",
    `Not starting the run: ${problems.join("\n")}\n` +
      "Or remove the cost cap (a --mock or --cache replay run is never refused for this).",
  );
}

/** `run.json`'s `prices`: every model and embedding model of the run, its price and its source. */
export function manifestPrices(
  config: Config,
  prices: RunPrices,
  options: { mock: boolean },
): ManifestPrices {
  const models = new Map<string, ManifestPrices["models"][number]>();
  for (const system of config.systems) {
    if (!callsModel(system)) continue;
    const { name, base_url } = system.model;
    const found = prices.model(system.model);
    const id = JSON.stringify([name, base_url, found.pricing]);
    const known = models.get(id);
    if (known) {
      known.systems.push(system.name);
      continue;
    }
    models.set(id, {
      model: name,
      base_url,
      systems: [system.name],
      input_per_mtok: found.pricing?.input_per_mtok ?? null,
      output_per_mtok: found.pricing?.output_per_mtok ?? null,
      source: found.source,
      catalog_entry: found.entry,
    });
  }
  const embeddings = new Map<string, ManifestPrices["embeddings"][number]>();
  for (const { system, retriever } of systemRetrievers(config)) {
    for (const embedding of calledEmbeddings(retriever.config, options.mock)) {
      const found = prices.embedding(embedding);
      const id = JSON.stringify([embedding.model, embedding.base_url, found.per_mtok]);
      const known = embeddings.get(id);
      if (known) {
        if (!known.systems.includes(system)) known.systems.push(system);
        continue;
      }
      embeddings.set(id, {
        model: embedding.model,
        base_url: embedding.base_url,
        systems: [system],
        input_per_mtok: found.per_mtok,
        source: found.source,
        catalog_entry: found.entry,
      });
    }
  }
  return {
    catalog: prices.catalog,
    simulated: options.mock,
    models: [...models.values()],
    embeddings: [...embeddings.values()],
  };
}
