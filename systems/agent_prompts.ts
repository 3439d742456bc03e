/**
 * The configurable prompts of the tool-using agents (`agent_search`,
 * `grep_agent`, `code_agent`, the framework systems): `system`, the
 * instructions that open the conversation, and `final_answer`, the message
 * that withholds the tools and asks for the answer once a limit stops the
 * loop. Both may use `{{question}}`, `{{tools}}` (the names of the tools
 * offered, comma-separated) and `{{max_steps}}`. Each system type declares
 * its defaults with {@link agentPromptSet}; the reply protocol's own texts
 * (react_json's JSON format, the code agent's program rules) stay fixed and
 * are added by the loop after the configured text.
 *
 * @module
 */

import {
  definePrompts,
  promptIsSet,
  type PromptSet,
  promptText,
} from "../lib/prompts/prompt_set.ts";
import { renderPrompt } from "../lib/prompts/template.ts";
import type { SystemContext } from "./system.ts";

/** The placeholders of an agent's prompts. */
export const AGENT_PLACEHOLDERS: readonly string[] = ["question", "tools", "max_steps"];

/** The prompts of an agent type, with its defaults and the protocol texts it also sends. */
export function agentPromptSet(
  defaults: { system: string; final_answer: string },
  fixed: readonly string[] = [],
): PromptSet {
  return definePrompts({
    system: {
      about: "the instructions, sent as the system message before the question",
      default: defaults.system,
      placeholders: AGENT_PLACEHOLDERS,
    },
    final_answer: {
      about: "the message that withholds the tools and asks for the answer when a limit is hit",
      default: defaults.final_answer,
      placeholders: AGENT_PLACEHOLDERS,
    },
  }, fixed);
}

/** An agent's prompts for one question, placeholders filled in. */
export interface AgentTexts {
  system: string;
  /** The final-answer message; absent when the config sets none (the loop's protocol default). */
  final?: string;
}

/** The texts of an agent with `options` for the question of `ctx`. */
export function agentTexts(
  set: PromptSet,
  options: Readonly<Record<string, unknown>> & { max_steps: number },
  ctx: Pick<SystemContext, "question" | "tools">,
): AgentTexts {
  const values = new Map([
    ["question", ctx.question.question],
    ["tools", ctx.tools.specs.map((s) => s.name).join(", ") || "none"],
    ["max_steps", String(options.max_steps)],
  ]);
  const system = renderPrompt(promptText(set, options, "system"), values);
  return promptIsSet(options, "final_answer")
    ? { system, final: renderPrompt(promptText(set, options, "final_answer"), values) }
    : { system };
}
