/**
 * The pre-flight estimate of a run: how many system × question × repeat
 * jobs, how many model calls each system may make per question (from its
 * limits), and a cost range from the price table. No model is called.
 *
 * The token rule (one token per four characters, as the mock model counts):
 * - the fixed part of every request is the system prompt, the question
 *   (the mean over the question set) and the offered tools' descriptions
 *   and JSON Schemas;
 * - lower bound: the fewest calls (`min`), each sending the fixed part and
 *   receiving {@link MIN_OUTPUT_TOKENS};
 * - upper bound: the most calls (`max`); call k (1-based) also re-sends
 *   k − 1 earlier turns, each one tool result at `tools.max_output_chars`
 *   plus {@link TURN_OVERHEAD_TOKENS} for the call itself, and receives the
 *   model's `max_output_tokens` (or {@link DEFAULT_MAX_OUTPUT_TOKENS} when
 *   unset).
 *
 * It is an estimate, not a bound: a turn with several tool calls, a model
 * that writes longer replies than its cap suggests, or a provider that
 * counts tokens differently can go past the upper figure.
 *
 * @module
 */

import type { Pricing } from "../llm/model.ts";
import type { Usage } from "../types.ts";
import { costOf } from "../llm/model.ts";
import { plural } from "../util/plural.ts";

/** Output tokens a call is assumed to produce at least (a reply is at least one token). */
export const MIN_OUTPUT_TOKENS = 1;
/** Output tokens assumed per call when the model has no `max_output_tokens`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 500;
/** Tokens of one earlier turn beside its tool result (the call and message framing). */
export const TURN_OVERHEAD_TOKENS = 50;

/** What the estimate needs to know about one system. */
export interface EstimateSystem {
  name: string;
  modelId: string;
  /** Null when the model's price is unknown: the system's cost is then left out, and said so. */
  pricing: Pricing | null;
  /** Model calls per question: the fewest and the most its limits allow. */
  calls: { min: number; max: number };
  /** Characters of the system prompt plus the offered tools' specs. */
  fixedChars: number;
  /** The model's `max_output_tokens` (null: unset). */
  maxOutputTokens: number | null;
}

/** The estimate of one system over the whole run. */
export interface SystemEstimate {
  name: string;
  modelId: string;
  calls: { min: number; max: number };
  /** US dollars over every question and repeat; null when the model's price is unknown. */
  costUsd: { min: number; max: number } | null;
}

/** The estimate of a run. */
export interface RunEstimate {
  systems: number;
  questions: number;
  repeats: number;
  /** systems × questions × repeats. */
  jobs: number;
  perSystem: SystemEstimate[];
  /** Over the systems whose price is known. */
  costUsd: { min: number; max: number };
  /** Systems left out of `costUsd` because their model's price is unknown. */
  unpriced: string[];
}

/** Estimates a run. Pure. */
export function estimateRun(
  systems: readonly EstimateSystem[],
  questions: ReadonlyArray<{ question: string }>,
  options: { repeats: number; maxOutputChars: number },
): RunEstimate {
  const meanQuestionChars = questions.length === 0
    ? 0
    : questions.reduce((n, q) => n + q.question.length, 0) / questions.length;
  const runs = questions.length * options.repeats;
  const perSystem = systems.map((s): SystemEstimate => {
    // A system that calls no model (retrieval_only) costs nothing here, whatever its model's price.
    const pricing = s.calls.max === 0 ? { input_per_mtok: 0, output_per_mtok: 0 } : s.pricing;
    if (pricing === null) {
      return { name: s.name, modelId: s.modelId, calls: s.calls, costUsd: null };
    }
    const price = (usage: Usage) => costOf(usage, pricing)!;
    const fixed = Math.ceil((s.fixedChars + meanQuestionChars) / 4);
    const low = s.calls.min * price({ input_tokens: fixed, output_tokens: MIN_OUTPUT_TOKENS });
    const turn = Math.ceil(options.maxOutputChars / 4) + TURN_OVERHEAD_TOKENS;
    const output = s.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    let high = 0;
    for (let k = 1; k <= s.calls.max; k++) {
      high += price({ input_tokens: fixed + (k - 1) * turn, output_tokens: output });
    }
    return {
      name: s.name,
      modelId: s.modelId,
      calls: s.calls,
      costUsd: { min: low * runs, max: high * runs },
    };
  });
  return {
    systems: systems.length,
    questions: questions.length,
    repeats: options.repeats,
    jobs: systems.length * runs,
    perSystem,
    costUsd: {
      min: perSystem.reduce((n, s) => n + (s.costUsd?.min ?? 0), 0),
      max: perSystem.reduce((n, s) => n + (s.costUsd?.max ?? 0), 0),
    },
    unpriced: perSystem.filter((s) => s.costUsd === null).map((s) => s.name),
  };
}

/**
 * The estimate as lines for the console. `simulated` (`--mock`): the
 * dollars are what the mock's token counts would cost, nothing is spent.
 */
export function estimateLines(
  estimate: RunEstimate,
  options: { simulated?: boolean } = {},
): string[] {
  const lines = [
    `plan: ${plural(estimate.systems, "system")} × ${plural(estimate.questions, "question")} × ${
      plural(estimate.repeats, "repeat")
    } = ${plural(estimate.jobs, "run")}`,
  ];
  for (const s of estimate.perSystem) {
    if (s.calls.max === 0) {
      lines.push(`  ${s.name}: no model call`);
      continue;
    }
    const calls = s.calls.min === s.calls.max
      ? `${s.calls.min} model call${s.calls.min === 1 ? "" : "s"}`
      : `${s.calls.min}–${s.calls.max} model calls`;
    const cost = s.costUsd === null
      ? "cost unknown (no price for its model)"
      : `${dollars(s.costUsd.min)}–${dollars(s.costUsd.max)}`;
    lines.push(`  ${s.name} (${s.modelId}): ${calls} a question, ${cost}`);
  }
  const what = options.simulated
    ? "estimated cost, simulated (--mock spends nothing)"
    : "estimated cost";
  const range = `${dollars(estimate.costUsd.min)}–${dollars(estimate.costUsd.max)}`;
  const priced = estimate.perSystem.length - estimate.unpriced.length;
  if (priced === 0 && estimate.perSystem.length > 0) {
    lines.push(`${what}: unknown (no system's model has a known price)`);
    return lines;
  }
  const without = estimate.unpriced.length === 0
    ? ""
    : `; not counting ${estimate.unpriced.join(", ")}: price unknown`;
  lines.push(
    `${what}: ${range} (list prices; tokens estimated from prompt, question and tool sizes${without})`,
  );
  return lines;
}

/** A dollar figure with enough digits to be non-zero for small runs. */
export function dollars(value: number): string {
  if (value === 0) return "$0";
  if (value >= 1) return `$${value.toFixed(2)}`;
  return `$${value.toPrecision(2)}`;
}
