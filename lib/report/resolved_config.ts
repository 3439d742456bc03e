/**
 * `config.resolved.yaml`: the config as the run used it — defaults filled
 * in, paths absolute, the price applied, each system's retriever (with all
 * its settings) and offered tools — so a
 * result can be traced to exactly what produced it. It holds no secret: the
 * API key is named by its variable, never read into this file, and a
 * retriever's literal password, key or header value is masked
 * (lib/config/retriever_secrets.ts).
 *
 * @module
 */

import { plainYaml } from "../util/plain_yaml.ts";
import { yamlLibrary } from "../util/yaml_library.ts";
import type { Config, ToolRef } from "../config/types.ts";
import { persistedRetriever } from "../config/retriever_secrets.ts";
import type { Pricing } from "../llm/model.ts";

/** Run facts beside the config. */
export interface RunFacts {
  version: string;
  mock: boolean;
  /** Id and price of the run's `model:` (null: unknown). */
  modelId: string;
  pricing: Pricing | null;
  /** Id and price of each system's model, by system name (null: unknown). */
  models: ReadonlyMap<string, { id: string; pricing: Pricing | null }>;
  concurrency: number;
  /** Offered tool names by system name. */
  tools: ReadonlyMap<string, readonly string[]>;
  /** A tool reference's entry in the file (its tool source says: `lib/plan/tool_sources/`). */
  toolEntry(ref: ToolRef): Record<string, unknown>;
}

/** The YAML text of the resolved config. */
export function resolvedConfigYaml(config: Config, facts: RunFacts): string {
  const value = {
    ragbench_version: facts.version,
    name: config.name,
    ...(config.description === undefined ? {} : { description: config.description }),
    config_file: config.file,
    corpus: config.corpus,
    questions: config.questions,
    mock_script: config.mock_script,
    mock: facts.mock,
    model: { ...config.model, id: facts.modelId, price: facts.pricing },
    evaluation: { ...config.evaluation, concurrency: facts.concurrency },
    tools: config.tools,
    retrievers: Object.fromEntries(
      Object.entries(config.retrievers).map(([name, r]) => [name, persistedRetriever(r)]),
    ),
    systems: config.systems.map((s) => ({
      ...s.options,
      ...(s.retriever
        ? { retriever: { name: s.retriever.name, ...persistedRetriever(s.retriever.config) } }
        : {}),
      model: {
        ...s.model,
        id: facts.models.get(s.name)?.id ?? null,
        price: facts.models.get(s.name)?.pricing ?? null,
      },
      tools: s.tools.map((t) => facts.toolEntry(t)),
      offered_tools: facts.tools.get(s.name) ?? [],
    })),
  };
  const plain = JSON.parse(JSON.stringify(value));
  // The yaml library only for what the small writer is not sure of (it loads in ~30 ms).
  return plainYaml(plain) ?? yamlLibrary().stringify(plain, { lineWidth: 0 });
}
