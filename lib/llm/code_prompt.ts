/**
 * What a code agent's system prompt says in fixed words: the sentence that
 * opens its program rules, and the line listing the tool functions a program
 * may call, which the code agent's mock policy (`systems/code_agent_mock.ts`)
 * reads back. Which conversation is a code agent's is said by the request
 * (`ChatRequest.protocol`), not found in the prompt.
 *
 * @module
 */

/** The sentence that opens a code agent's program rules. */
export const CODE_AGENT_MARKER =
  "Reply with one JavaScript program in a ```js fenced block; it is run for you.";

/** Starts the prompt line that lists the tool functions, comma-separated. */
export const CODE_FUNCTIONS_PREFIX = "Tool functions: ";

/** The tool function names a code agent's system prompt lists (empty when none). */
export function codeFunctionNames(system: string): string[] {
  const line = system.split("\n").find((l) => l.startsWith(CODE_FUNCTIONS_PREFIX));
  if (line === undefined) return [];
  return line.slice(CODE_FUNCTIONS_PREFIX.length).split(",").map((n) => n.trim()).filter(
    (n) => n !== "" && n !== "(none)",
  );
}
