/**
 * `agent_search`: a function-calling agent that always has `search` plus the
 * tools of its `tools:` list, decides when to search, compute or grep, and
 * writes a cited answer. Limits: `max_steps`, `max_tool_calls`,
 * `max_cost_usd`, `max_tokens` (see `agent_loop.ts`).
 *
 * @module
 */

import { toolSystemBaseSchema } from "../lib/config/schema.ts";
import { FINAL_ANSWER_PROMPT, runAgentLoop } from "./agent_loop.ts";
import { defineSystem } from "./system.ts";

/** The instructions the agent gets. */
export const AGENT_SEARCH_PROMPT = "You answer questions about a document collection. " +
  "Use the search tool to find the passages that hold the answer (search again with " +
  "different words if the first results do not), and use the other tools when they help. " +
  "Answer briefly and cite the ids of the documents you used in square brackets. " +
  "If the documents do not contain the answer, say that you cannot find it in the " +
  "documents; do not answer from memory.";

/** The agent_search system. */
export const agentSearch = defineSystem({
  type: "agent_search",
  description: "Function-calling agent with search (always) plus the tools of its tools: list.",
  acceptsTools: true,
  alwaysTools: ["search"],
  prompts: [AGENT_SEARCH_PROMPT, FINAL_ANSWER_PROMPT],
  options: toolSystemBaseSchema,
  run(options, ctx) {
    return runAgentLoop(ctx, { system: AGENT_SEARCH_PROMPT }, options);
  },
});
