/**
 * The pre-flight estimate of `ragbench run` (printed at the start of every
 * run, and alone with `--dry-run`), and the check that stops a run whose
 * lower cost estimate is over `evaluation.max_cost_usd` before the first
 * question (unless `--force`). Builds what `lib/run/estimate.ts` needs from
 * the config: each system's call range from its limits, the size of its
 * prompt and offered tools, its model's id and price. Tool costs (custom and
 * MCP tools' `cost_usd`) are not included: the estimate is of model cost.
 *
 * @module
 */

import { effectivePrompts } from "../prompts/prompt_set.ts";
import type { Config } from "../config/types.ts";
import { RagbenchError } from "../errors.ts";
import { describeModel } from "../llm/select.ts";
import type { RunPrices } from "../llm/pricing.ts";
import { dollars, type EstimateSystem, type RunEstimate } from "../run/estimate.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { modelCallsOf } from "../../systems/system.ts";
import { parametersJsonSchema } from "../../tools/define_tool.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";

/** Characters assumed for a system that declares no `prompts`. */
export const DEFAULT_PROMPT_CHARS = 500;
/**
 * Characters assumed for a custom or MCP tool's description and JSON Schema
 * (only known once its process or server runs).
 */
export const CUSTOM_SCHEMA_CHARS = 400;

/** What the estimate needs about each system of the config. */
export function estimateSystems(
  config: Config,
  mock: boolean,
  prices: RunPrices,
): EstimateSystem[] {
  return config.systems.map((system) => {
    const def = SYSTEMS.get(system.type);
    if (!def) throw new TypeError(`system type "${system.type}" is not registered`);
    const model = describeModel(system.model, mock, prices);
    let toolChars = 0;
    const builtins = new Set([
      ...def.alwaysTools,
      ...system.tools.flatMap((t) => t.kind === "builtin" ? [t.name] : []),
    ]);
    for (const name of builtins) {
      const builtin = BUILTIN_TOOLS.get(name);
      if (!builtin) throw new TypeError(`built-in tool "${name}" is not registered`);
      toolChars += name.length + builtin.description.length +
        JSON.stringify(parametersJsonSchema(builtin)).length;
    }
    for (const tool of system.tools) {
      // Custom and MCP schemas are only known once their process or server runs.
      if (tool.kind === "custom") {
        toolChars += tool.name.length + (tool.description?.length ?? 0) + CUSTOM_SCHEMA_CHARS;
      } else if (tool.kind === "mcp") {
        for (const name of tool.allow) {
          toolChars += tool.prefix.length + name.length + CUSTOM_SCHEMA_CHARS;
        }
      }
    }
    return {
      name: system.name,
      modelId: model.id,
      pricing: model.pricing,
      calls: modelCallsOf(def, system.options),
      fixedChars: (def.prompts
        ? effectivePrompts(def.prompts, system.options)[0].length
        : DEFAULT_PROMPT_CHARS) + toolChars,
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
