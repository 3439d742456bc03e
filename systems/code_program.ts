/**
 * The code agent's reply format: how a program is taken out of a model's
 * reply, what the agent is told, and what it reads back after a program
 * that did not answer.
 *
 * @module
 */

import { CODE_AGENT_MARKER, CODE_FUNCTIONS_PREFIX } from "../lib/llm/code_prompt.ts";
import type { ToolSpec } from "../lib/llm/model.ts";
import type { ProgramOutcome } from "../tools/sandbox/code_host.ts";

/** Longest program accepted (characters); a longer reply is refused unrun. */
export const MAX_PROGRAM_CHARS = 100_000;

/** A program taken from a reply, or why there is none. */
export type Extracted = { program: string } | { problem: string };

/**
 * The program in a model reply: the first fenced block tagged `js`,
 * `javascript` or `mjs` (any case); else the first fenced block with no tag;
 * else, when the reply has no fence at all, the whole reply. An unclosed
 * fence runs to the end of the reply.
 */
export function extractProgram(reply: string | null): Extracted {
  const text = reply ?? "";
  if (text.trim() === "") return { problem: "Your reply was empty: it held no program." };
  const lines = text.split("\n");
  const blocks: Array<{ tag: string; body: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].trim();
    if (!open.startsWith("```")) continue;
    const tag = open.slice(3).trim().toLowerCase();
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j].trim() !== "```") body.push(lines[j++]);
    blocks.push({ tag, body: body.join("\n") });
    i = j;
  }
  let program: string;
  if (blocks.length === 0) program = text;
  else {
    const block = blocks.find((b) => b.tag === "js" || b.tag === "javascript" || b.tag === "mjs") ??
      blocks.find((b) => b.tag === "");
    if (!block) {
      return {
        problem:
          "Your reply held no ```js block. Write the program in JavaScript, in a ```js block.",
      };
    }
    program = block.body;
  }
  if (program.trim() === "") return { problem: "Your reply's ```js block was empty." };
  if (program.length > MAX_PROGRAM_CHARS) {
    return {
      problem:
        `Your program is ${program.length} characters long; the limit is ${MAX_PROGRAM_CHARS}. Write a shorter one.`,
    };
  }
  return { program };
}

/** Tool names usable as JavaScript function names (a tool with another name is not offered). */
export function functionNames(specs: readonly ToolSpec[]): string[] {
  return specs.map((s) => s.name).filter((n) =>
    /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(n) && !RESERVED.has(n)
  );
}

const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with yield let static implements interface package private " +
    "protected public await arguments eval print final_answer console").split(" "),
);

/** How programs work, as the code agent's system prompt says it (the fixed part). */
export const CODE_PROGRAM_RULES = [
  CODE_AGENT_MARKER,
  "The program is the body of an async function. Call each tool as an async function " +
  'with one object of named arguments, e.g. `const text = await search({query: "..."})`; ' +
  "it resolves to the tool's output text (an error reads `Error (KIND): message`). " +
  "`print(...values)` shows you values in the next message. " +
  "End with `final_answer(text)`, which gives the answer and stops the program. " +
  "A program that does not call final_answer shows you what it printed, and you write another. " +
  "The program cannot read files, the network or the environment.",
].join("\n");

/** The code agent's system prompt for these tools. */
export function codeAgentPrompt(specs: readonly ToolSpec[], instructions: string): string {
  const names = functionNames(specs);
  const tools = specs.filter((s) => names.includes(s.name)).map((s) =>
    `- ${s.name}(args): ${s.description}\n  args: ${JSON.stringify(s.parameters)}`
  );
  return [
    instructions,
    "",
    CODE_PROGRAM_RULES,
    `${CODE_FUNCTIONS_PREFIX}${names.join(", ") || "(none)"}`,
    ...tools,
  ].join("\n");
}

/** Asks for the last program, which must answer with what was found. */
export const CODE_FINAL_PROMPT = "Stop calling tools now: tool functions no longer run. " +
  "Reply with a program that calls final_answer(text) with what you have found so far; " +
  "if that is not enough to answer, say so in the answer.";

/** What a tool function returns once the tools are withheld or a cap is reached. */
export const TOOLS_WITHHELD = "Not run: no more tool calls for this question. Call final_answer.";

/** The next user message after a reply whose program did not answer. */
export function observation(outcome: ProgramOutcome | { problem: string }): string {
  if ("problem" in outcome) {
    return `${outcome.problem}\nReply with a program in a \`\`\`js block that ends with final_answer(text).`;
  }
  const parts: string[] = [];
  if (outcome.status === "error") {
    parts.push(
      outcome.kind === "syntax"
        ? `The program did not compile: ${outcome.message}`
        : outcome.kind === "exception"
        ? `The program threw: ${outcome.message}`
        : outcome.kind === "answer"
        ? `The answer was refused: ${outcome.message}. Pass the answer as text: final_answer(text).`
        : `The program failed (${outcome.kind}): ${outcome.message}`,
    );
  } else {
    parts.push("The program ended without calling final_answer(text).");
  }
  if (outcome.printed !== "") {
    parts.push(`Printed:\n${outcome.printed}`);
    if (outcome.printedCut) parts.push("[printed output cut at the limit]");
  } else parts.push("It printed nothing.");
  parts.push("Write another program; end it with final_answer(text).");
  return parts.join("\n");
}
