/**
 * The pre-flight estimate of `ragbench run` (printed at the start of every
 * run, and alone with `--dry-run`), and the check that stops a run whose
 * lower cost estimate is over `evaluation.max_cost_usd` before the first
 * question (unless `--force`). Builds what `lib/run/estimate.ts` needs from
 * the config: each system's call range from its limits, the size of its
 * prompt and offered tools, its model's id and price.
 *
 * @module
 */

import type { Config } from "../config/load.ts";
import { RagbenchError } from "../errors.ts";
import { describeModel } from "../llm/select.ts";
import { dollars, type EstimateSystem, type RunEstimate } from "../run/estimate.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { modelCallsOf } from "../../systems/system.ts";
import { parametersJsonSchema } from "../../tools/define_tool.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";

/** Characters assumed for a system that declares no `prompts`. */
export const DEFAULT_PROMPT_CHARS = 500;
/** Characters assumed for a custom tool's JSON Schema (it is only known once its process runs). */
export const CUSTOM_SCHEMA_CHARS = 400;

/** What the estimate needs about each system of the config. */
export function estimateSystems(config: Config, mock: boolean): EstimateSystem[] {
  return config.systems.map((system) => {
    const def = SYSTEMS.get(system.type);
    if (!def) throw new TypeError(`system type "${system.type}" is not registered`);
    const model = describeModel(system.model, mock);
    let toolChars = 0;
    const names = new Set([...def.alwaysTools, ...system.tools.map((t) => t.name)]);
    for (const name of names) {
      const builtin = BUILTIN_TOOLS.get(name);
      if (builtin) {
        toolChars += name.length + builtin.description.length +
          JSON.stringify(parametersJsonSchema(builtin)).length;
        continue;
      }
      const custom = system.tools.find((t) => t.name === name);
      const description = custom?.kind === "custom" ? custom.description ?? "" : "";
      toolChars += name.length + description.length + CUSTOM_SCHEMA_CHARS;
    }
    return {
      name: system.name,
      modelId: model.id,
      pricing: model.pricing,
      calls: modelCallsOf(def, system.options),
      fixedChars: (def.prompts?.[0]?.length ?? DEFAULT_PROMPT_CHARS) + toolChars,
      maxOutputTokens: system.model.max_output_tokens,
    };
  });
}

/**
 * Stops the run when even the lower estimate exceeds the run's cost cap.
 *
 * @throws {RagbenchError} (code "budget") naming both figures and the ways out.
 */
export function checkEstimate(estimate: RunEstimate, maxCostUsd: number | null, force: boolean) {
  if (maxCostUsd === null || force || estimate.costUsd.min <= maxCostUsd) return;
  throw new RagbenchError(
    "budget",
    `Not starting the run: its lower cost estimate, ${
      dollars(estimate.costUsd.min)
    }, is over evaluation.max_cost_usd (${
      dollars(maxCostUsd)
    }). Raise the cap, run less (--limit, --systems), or pass --force to start anyway.`,
  );
}
