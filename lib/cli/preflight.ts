/**
 * The pre-flight estimate of `ragbench run` (printed at the start of every
 * run, and alone with `--dry-run`), and the check that stops a run whose
 * lower cost estimate is over `evaluation.max_cost_usd` before the first
 * question (unless `--force`). Builds what `lib/run/estimate.ts` needs from
 * the config: each system's call range from its limits, the size of its
 * prompt and offered tools (each tool source says how many characters its
 * tools add: `promptChars`), its model's id and price. Tool costs (custom and
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
import { builtinRef } from "../plan/tool_sources/builtin.ts";
import { sourceOf } from "../plan/tool_sources/registry.ts";

/** Characters assumed for a system that declares no `prompts`. */
export const DEFAULT_PROMPT_CHARS = 500;
/**
 * Characters assumed for a custom or MCP tool's description and JSON Schema
 * (only known once its process or server runs).
 */
export { CUSTOM_SCHEMA_CHARS } from "../plan/tool_sources/source.ts";

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
    // Each tool once: an always-on built-in the tools: list names again (with options) is one.
    const listed = new Set(system.tools.map((t) => t.name));
    let toolChars = 0;
    for (
      const ref of [
        ...def.alwaysTools.filter((n) => !listed.has(n)).map(builtinRef),
        ...system.tools,
      ]
    ) {
      toolChars += sourceOf(ref).promptChars(ref);
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
