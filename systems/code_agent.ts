/**
 * `code_agent`: the model writes a short JavaScript program in each reply;
 * the program calls the system's tools as async functions, may print, and
 * ends with `final_answer(text)`. It always has `search` plus the tools of
 * its `tools:` list, and the limits of `agent_search` (`max_steps`,
 * `max_tool_calls`, `max_cost_usd`, `max_tokens`, checked by the functions
 * of `agent_loop.ts`), plus `program_timeout_s` (CPU time),
 * `program_wall_timeout_s` (the backstop for a program that waits),
 * `memory_mb` and `max_print_chars` for each program.
 *
 * Programs run in a subprocess with no permissions (`tools/sandbox/code_host.ts`),
 * one per question, reused across its replies and replaced after a kill. A
 * tool call from a program is executed here through the question's tool
 * session, so it is a tool step of the trace like any other. A reply whose
 * program does not answer (no program, a syntax error, an exception, a
 * timeout, no `final_answer`) counts as a format error, and the model reads
 * what happened in the next user message.
 *
 * @module
 */

import { z } from "zod";
import { toolSystemBaseSchema } from "../lib/config/schema.ts";
import type { ChatMessage } from "../lib/llm/model.ts";
import type { TraceFlags } from "../lib/types.ts";
import type { ProgramOutcome } from "../tools/sandbox/code_host.ts";
import { toolMessageText } from "../tools/toolbox.ts";
import { type AgentLimits, stopReason, toolCallCapReached } from "./agent_loop.ts";
import { AGENT_SEARCH_PROMPT } from "./agent_search.ts";
import {
  CODE_FINAL_PROMPT,
  CODE_PROGRAM_RULES,
  codeAgentPrompt,
  extractProgram,
  functionNames,
  observation,
  TOOLS_WITHHELD,
} from "./code_program.ts";
import { agentPromptSet, type AgentTexts, agentTexts } from "./agent_prompts.ts";
import { CODE_PROTOCOL, codeMock } from "./code_agent_mock.ts";
import { defineSystem, type SystemContext, type SystemOutcome } from "./system.ts";

/**
 * Its prompts (`system`, `final_answer`: see `agent_prompts.ts`); the program
 * rules and the tool functions follow the configured `system` text, fixed.
 */
export const CODE_AGENT_PROMPTS = agentPromptSet(
  { system: AGENT_SEARCH_PROMPT, final_answer: CODE_FINAL_PROMPT },
  [CODE_PROGRAM_RULES, TOOLS_WITHHELD],
);

/** The backstop of a program that waits, when `program_wall_timeout_s` is not given: the larger. */
const WALL_FLOOR_S = 60;
const WALL_FACTOR = 10;

/** The code agent's options. */
export const codeAgentSchema = toolSystemBaseSchema.extend({
  prompts: CODE_AGENT_PROMPTS.schema.optional(),
  /**
   * CPU time of one program in seconds (its sandbox process's user + system time, every thread);
   * tool calls run outside it and never count.
   */
  program_timeout_s: z.number().positive().max(600).default(5),
  /**
   * Elapsed time of one program in seconds, its tool calls not counted: the backstop for a program
   * that waits without using the CPU. Default: the larger of 60 s and 10 × `program_timeout_s`.
   */
  program_wall_timeout_s: z.number().positive().max(86_400).optional(),
  /** Memory limit of the program's process (MiB): V8 heap and resident memory. */
  memory_mb: z.int().min(32).max(4096).default(128),
  /** Printed characters of one program the model reads back. */
  max_print_chars: z.int().min(100).max(100_000).default(4000),
}).refine(
  (o) => o.program_wall_timeout_s === undefined || o.program_wall_timeout_s >= o.program_timeout_s,
  {
    path: ["program_wall_timeout_s"],
    message:
      "must be at least program_timeout_s: it is the backstop for a program that waits, and a lower one would stop programs by the clock, not by their CPU time",
  },
);

/** The wall-clock backstop of one program (seconds), given or derived from its CPU limit. */
export function programWallTimeoutS(options: CodeAgentOptions): number {
  return options.program_wall_timeout_s ??
    Math.max(WALL_FLOOR_S, WALL_FACTOR * options.program_timeout_s);
}

type CodeAgentOptions = z.output<typeof codeAgentSchema>;

/** The code_agent system. */
export const codeAgent = defineSystem({
  type: "code_agent",
  description:
    "Agent that writes a JavaScript program per reply, calling search (always) and its tools: list as functions, in a sandbox.",
  acceptsTools: true,
  alwaysTools: ["search"],
  prompts: CODE_AGENT_PROMPTS,
  mock: [codeMock],
  options: codeAgentSchema,
  async run(options, ctx) {
    // Loaded here, not at start-up: a run without a code agent never loads the sandbox host.
    const { createCodeSandbox } = await import("../tools/sandbox/code_host.ts");
    const sandbox = createCodeSandbox({
      cpuMs: options.program_timeout_s * 1000,
      wallMs: programWallTimeoutS(options) * 1000,
      memoryMb: options.memory_mb,
      maxPrintChars: options.max_print_chars,
    });
    sandbox.warm();
    try {
      return await codeLoop(
        ctx,
        { ...options, texts: agentTexts(CODE_AGENT_PROMPTS, options, ctx) },
        (program, tools, call) => sandbox.run({ program, tools, call, signal: ctx.signal }),
      );
    } finally {
      await sandbox.close();
    }
  },
});

type RunProgram = (
  program: string,
  tools: readonly string[],
  call: (tool: string, args: string) => Promise<string>,
) => Promise<ProgramOutcome>;

/**
 * The reply loop; `runProgram` runs one program in the sandbox. `limits.texts`
 * are the system's prompts for the question (default: its type's defaults).
 */
export async function codeLoop(
  ctx: SystemContext,
  limits: AgentLimits & { texts?: AgentTexts },
  runProgram: RunProgram,
): Promise<SystemOutcome> {
  const { recorder, tools, signal } = ctx;
  const names = functionNames(tools.specs);
  const texts = limits.texts ?? { system: AGENT_SEARCH_PROMPT };
  const messages: ChatMessage[] = [
    { role: "system", content: codeAgentPrompt(tools.specs, texts.system) },
    { role: "user", content: ctx.question.question },
  ];
  let calls = 0;
  const callTool = async (tool: string, args: string) => {
    if (toolCallCapReached(recorder, limits)) return TOOLS_WITHHELD;
    const result = await recorder.tool(
      tools,
      { id: `code_${recorder.modelCalls}_${++calls}`, name: tool, arguments: args },
      signal,
    );
    return toolMessageText(result);
  };
  const attempt = async (content: string | null, call: typeof callTool) => {
    const extracted = extractProgram(content);
    if ("problem" in extracted) return extracted;
    return await runProgram(extracted.program, names, call);
  };

  let stop: ReturnType<typeof stopReason>;
  while ((stop = stopReason(recorder, limits)) === null) {
    const reply = await recorder.chat({ messages, tools: [], protocol: CODE_PROTOCOL }, signal);
    messages.push({ role: "assistant", content: reply.content });
    const outcome = await attempt(reply.content, callTool);
    if ("status" in outcome && outcome.status === "answered") {
      return { answer: outcome.answer, flags: flags(false, false, false, outcome.answerCut) };
    }
    recorder.formatError();
    messages.push({ role: "user", content: observation(outcome) });
  }
  messages.push({ role: "user", content: texts.final ?? CODE_FINAL_PROMPT });
  const reply = await recorder.chat({ messages, tools: [], protocol: CODE_PROTOCOL }, signal, true);
  // deno-lint-ignore require-await
  const outcome = await attempt(reply.content, async () => TOOLS_WITHHELD);
  const budget = stop !== "max_steps";
  if ("status" in outcome && outcome.status === "answered") {
    return { answer: outcome.answer, flags: flags(true, budget, false, outcome.answerCut) };
  }
  recorder.formatError();
  return { answer: null, flags: flags(true, budget, true) };
}

function flags(
  bestEffort: boolean,
  budget: boolean,
  formatError: boolean,
  answerCut = false,
): TraceFlags {
  return {
    best_effort: bestEffort,
    budget_exhausted: budget,
    format_error: formatError,
    // Only when set, so the lines of every other answer keep their three flags.
    ...(answerCut ? { answer_truncated: true } : {}),
  };
}

/** The options type, for tests. */
export type { CodeAgentOptions };
