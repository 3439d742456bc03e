/**
 * `agent_search`: a function-calling agent that always has `search` plus the
 * tools of its `tools:` list, decides when to search, compute or grep, and
 * writes a cited answer. `agent_mode: react_json` swaps native function
 * calling for one JSON action a reply (`react_json_loop.ts`). Limits: `max_steps`, `max_tool_calls`,
 * `max_cost_usd`, `max_tokens` (see `agent_loop.ts`).
 *
 * @module
 */

import { toolSystemBaseSchema } from "../lib/config/schema.ts";
import { FINAL_ANSWER_PROMPT } from "./agent_loop.ts";
import { AGENT_MODE_MOCKS, agentModeSchema, loopOf } from "./agent_mode.ts";
import { REACT_JSON_PROMPTS } from "../lib/llm/react_json.ts";
import { agentPromptSet, agentTexts } from "./agent_prompts.ts";
import { defineSystem } from "./system.ts";

/** The instructions the agent gets. */
export const AGENT_SEARCH_PROMPT = "You answer questions about a document collection. " +
  "Use the search tool to find the passages that hold the answer (search again with " +
  "different words if the first results do not), and use the other tools when they help. " +
  "Answer briefly and cite the ids of the documents you used in square brackets. " +
  "If the documents do not contain the answer, say that you cannot find it in the " +
  "documents; do not answer from memory.";

/** Its prompts (`system`, `final_answer`: see `agent_prompts.ts`) and the react_json protocol's. */
export const AGENT_SEARCH_PROMPTS = agentPromptSet(
  { system: AGENT_SEARCH_PROMPT, final_answer: FINAL_ANSWER_PROMPT },
  REACT_JSON_PROMPTS,
);

/** The agent_search system. */
export const agentSearch = defineSystem({
  type: "agent_search",
  description: "Function-calling agent with search (always) plus the tools of its tools: list.",
  acceptsTools: true,
  alwaysTools: ["search"],
  prompts: AGENT_SEARCH_PROMPTS,
  mock: AGENT_MODE_MOCKS,
  options: toolSystemBaseSchema.extend({
    agent_mode: agentModeSchema,
    prompts: AGENT_SEARCH_PROMPTS.schema.optional(),
  }),
  run(options, ctx) {
    return loopOf(options.agent_mode)(ctx, agentTexts(AGENT_SEARCH_PROMPTS, options, ctx), options);
  },
});
