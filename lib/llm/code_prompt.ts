/**
 * What a code agent's system prompt says in fixed words, so that the scripted
 * mock model can tell a code agent's conversation from a function-calling
 * one and knows which tool functions the program may call.
 *
 * @module
 */

/** The sentence that marks a code agent's system prompt. */
export const CODE_AGENT_MARKER =
  "Reply with one JavaScript program in a ```js fenced block; it is run for you.";

/** Starts the prompt line that lists the tool functions, comma-separated. */
export const CODE_FUNCTIONS_PREFIX = "Tool functions: ";

/** True when `system` is a code agent's system prompt. */
export function isCodeAgentPrompt(system: string): boolean {
  return system.includes(CODE_AGENT_MARKER);
}

/** The tool function names a code agent's system prompt lists (empty when none). */
export function codeFunctionNames(system: string): string[] {
  const line = system.split("\n").find((l) => l.startsWith(CODE_FUNCTIONS_PREFIX));
  if (line === undefined) return [];
  return line.slice(CODE_FUNCTIONS_PREFIX.length).split(",").map((n) => n.trim()).filter(
    (n) => n !== "" && n !== "(none)",
  );
}
