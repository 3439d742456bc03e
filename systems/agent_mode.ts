/**
 * `agent_mode:` of the tool-using agents: how the agent talks to its model.
 * `native` uses function calling (`agent_loop.ts`); `react_json` asks for
 * one JSON action a reply, for models that cannot call functions
 * (`react_json_loop.ts`). Both share the limits and the final answer call.
 *
 * @module
 */

import { z } from "zod";
import { runAgentLoop } from "./agent_loop.ts";
import { runReactJsonLoop } from "./react_json_loop.ts";
import type { MockPolicy } from "../lib/llm/mock_policy.ts";
import { reactJsonMock } from "./react_json_mock.ts";

/** The `agent_mode:` option (default `native`). */
export const agentModeSchema = z.enum(["native", "react_json"]).default("native");

/** One of the agent modes. */
export type AgentMode = z.output<typeof agentModeSchema>;

/** The loop of `mode`. */
export function loopOf(mode: AgentMode): typeof runAgentLoop {
  return mode === "react_json" ? runReactJsonLoop : runAgentLoop;
}

/** The mock policies of the agent modes' reply protocols (`native` is the mock's own `tools`). */
export const AGENT_MODE_MOCKS: readonly MockPolicy[] = [reactJsonMock];
