/**
 * `grep_agent`: an index-free agent. No chunking, no embeddings, no search
 * index: its only tools are `list_documents`, `corpus_grep` and
 * `read_document`, so it shows whether a corpus needs retrieval
 * infrastructure at all. Nothing is built before the first question; the
 * cost is paid per question, in agent turns. Its tools are fixed, so a
 * config may not give it a `tools:` list. Same limits and `agent_mode` as
 * `agent_search`.
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
export const GREP_AGENT_PROMPT = "You answer questions about a document collection that has " +
  "no search index. Use list_documents to see which documents exist, corpus_grep to find the " +
  "lines that mention the words you need (try other words if nothing matches), and " +
  "read_document to read around a match. Answer briefly and cite the ids of the documents you " +
  "used in square brackets. If the documents do not contain the answer, say that you cannot " +
  "find it in the documents; do not answer from memory.";

/** The tools of every grep_agent, in offered order. */
export const GREP_AGENT_TOOLS = ["list_documents", "corpus_grep", "read_document"] as const;

/** Its prompts (`system`, `final_answer`: see `agent_prompts.ts`) and the react_json protocol's. */
export const GREP_AGENT_PROMPTS = agentPromptSet(
  { system: GREP_AGENT_PROMPT, final_answer: FINAL_ANSWER_PROMPT },
  REACT_JSON_PROMPTS,
);

/** The grep_agent system. */
export const grepAgent = defineSystem({
  type: "grep_agent",
  description:
    "Index-free agent: list_documents, corpus_grep and read_document only (no tools: list).",
  acceptsTools: false,
  noToolsReason:
    "it is index-free and its tools are fixed (list_documents, corpus_grep, read_document)",
  alwaysTools: GREP_AGENT_TOOLS,
  prompts: GREP_AGENT_PROMPTS,
  mock: AGENT_MODE_MOCKS,
  options: toolSystemBaseSchema.omit({ tools: true, retriever: true }).extend({
    agent_mode: agentModeSchema,
    prompts: GREP_AGENT_PROMPTS.schema.optional(),
  }),
  run(options, ctx) {
    return loopOf(options.agent_mode)(ctx, agentTexts(GREP_AGENT_PROMPTS, options, ctx), options);
  },
});
