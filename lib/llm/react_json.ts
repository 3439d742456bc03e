/**
 * The react_json reply protocol, for models that cannot call functions: the
 * tools are described in the system prompt as text, the model is called with
 * no tools, and each reply must be exactly one JSON action —
 * `{"tool": NAME, "args": {...}}` or `{"answer": "..."}`. Tool results come
 * back as user messages starting with {@link OBSERVATION_PREFIX}; a reply that
 * is not a valid action comes back as one starting with
 * {@link INVALID_ACTION_PREFIX}, so the model can correct itself.
 *
 * What counts as valid (see {@link parseAction}): the whole reply (leading and
 * trailing white space aside) is one JSON object, optionally wrapped in a
 * single Markdown code fence (a first line of three backticks, optionally
 * followed by `json`, and a last line of three backticks), with exactly the
 * keys `tool` and `args` (a known tool name and an object; `args` may be
 * left out for a tool without parameters) or exactly the key `answer` (a
 * string). Text around the JSON, extra keys, a list, two objects or an
 * unknown tool are invalid. The react_json mock policy
 * (`systems/react_json_mock.ts`) reads the tool names from the prompt's
 * {@link TOOL_NAMES_LABEL} line; requests say they are react_json in
 * `ChatRequest.protocol`.
 *
 * @module
 */

import type { JsonValue } from "../types.ts";
import type { ToolSpec } from "./model.ts";

/** First line of the protocol section of the system prompt. */
export const REACT_JSON_HEADER = "## How to reply (react_json)";

/** Label of the prompt line that lists the tool names, comma-separated. */
export const TOOL_NAMES_LABEL = "Tool names: ";

/** Start of a user message that carries a tool result. */
export const OBSERVATION_PREFIX = "Observation: ";

/** Start of a user message that says why the last reply was not a valid action. */
export const INVALID_ACTION_PREFIX = "Invalid action: ";

/** The message of the forced final call (the loop stops offering tools). */
export const REACT_FINAL_PROMPT = "Stop using tools now. Reply with the final answer as " +
  '{"answer": "..."}, using what you have found so far; if that is not enough, say so in the answer.';

/**
 * What follows a configured final-answer message (a system's
 * `prompts.final_answer`) in react_json mode, so the model still knows the
 * reply format.
 */
export const REACT_FINAL_FORMAT = 'Reply with exactly one JSON object: {"answer": "..."}.';

/** The fixed texts of the protocol (hashed into `run.json` with each system's prompts). */
export const REACT_JSON_PROMPTS: readonly string[] = [
  buildReactJsonSystemPrompt("", []),
  REACT_FINAL_PROMPT,
  invalidActionMessage(""),
];

/** A parsed reply. */
export type ReactAction =
  | { kind: "tool"; tool: string; args: { [key: string]: JsonValue } }
  | { kind: "answer"; answer: string }
  | { kind: "invalid"; message: string };

/** Built prompts by tool list and instructions: a system asks for the same one every question. */
const builtPrompts = new WeakMap<readonly ToolSpec[], Map<string, string>>();

/**
 * Instructions kept per tool list: a configured prompt with `{{question}}`
 * differs on every question, and must not grow the map without bound.
 */
const MAX_BUILT_PER_TOOLS = 16;

/**
 * The system prompt of a react_json agent: its instructions, then the
 * protocol and the tools. Built once per tool list (a toolbox's `specs`,
 * which are not changed after they are made) and instructions.
 */
export function reactJsonSystemPrompt(instructions: string, specs: readonly ToolSpec[]): string {
  let byInstructions = builtPrompts.get(specs);
  if (byInstructions === undefined) {
    byInstructions = new Map();
    builtPrompts.set(specs, byInstructions);
  }
  let prompt = byInstructions.get(instructions);
  if (prompt === undefined) {
    prompt = buildReactJsonSystemPrompt(instructions, specs);
    if (byInstructions.size >= MAX_BUILT_PER_TOOLS) byInstructions.clear();
    byInstructions.set(instructions, prompt);
  }
  return prompt;
}

function buildReactJsonSystemPrompt(instructions: string, specs: readonly ToolSpec[]): string {
  const tools = specs.map((t) =>
    `### ${t.name}\n${t.description}\nArguments (JSON Schema): ${JSON.stringify(t.parameters)}`
  );
  return [
    instructions,
    "",
    REACT_JSON_HEADER,
    "Reply with exactly one JSON object and nothing else. To call a tool:",
    '{"tool": "TOOL_NAME", "args": {...}}',
    "You will get its result in the next message. To give the final answer:",
    '{"answer": "your answer"}',
    `${TOOL_NAMES_LABEL}${specs.map((t) => t.name).join(", ")}`,
    "",
    ...tools,
  ].join("\n");
}

/** The tool names a react_json system prompt offers, or null when `system` is not one. */
export function reactJsonToolNames(system: string): string[] | null {
  const at = system.indexOf(`\n${REACT_JSON_HEADER}\n`);
  if (at < 0) return null;
  const label = system.indexOf(`\n${TOOL_NAMES_LABEL}`, at);
  if (label < 0) return null;
  const start = label + 1 + TOOL_NAMES_LABEL.length;
  const end = system.indexOf("\n", start);
  const line = system.slice(start, end < 0 ? system.length : end);
  return line.split(",").map((n) => n.trim()).filter(Boolean);
}

/** Parses one reply against the tools offered. Never throws; linear in the reply's length. */
export function parseAction(reply: string | null, tools: ReadonlySet<string>): ReactAction {
  const text = unfence((reply ?? "").trim());
  if (text === "") return invalid("the reply was empty.");
  if (!text.startsWith("{")) {
    return invalid(
      "the reply must be one JSON object and nothing else (it does not start with {).",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalid(`the reply is not valid JSON (${shorten((error as Error).message)}).`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return invalid("the reply must be a JSON object.");
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  if (keys.length === 1 && keys[0] === "answer") {
    if (typeof object.answer !== "string") return invalid('"answer" must be a string.');
    return { kind: "answer", answer: object.answer };
  }
  const shapeOk = keys.length >= 1 && keys.length <= 2 && keys.includes("tool") &&
    (keys.length === 1 || keys.includes("args"));
  if (!shapeOk) {
    return invalid(
      `the object must have exactly the keys "tool" and "args", or exactly "answer" (it has ${
        keys.length ? keys.slice(0, 5).map((k) => JSON.stringify(shorten(k))).join(", ") : "none"
      }).`,
    );
  }
  if (typeof object.tool !== "string") return invalid('"tool" must be a string.');
  if (!tools.has(object.tool)) {
    const offered = [...tools].join(", ") || "none";
    return invalid(
      `there is no tool named ${JSON.stringify(shorten(object.tool))}. Tools: ${offered}.`,
    );
  }
  const args = object.args ?? {};
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return invalid('"args" must be a JSON object of named arguments.');
  }
  return { kind: "tool", tool: object.tool, args: args as { [key: string]: JsonValue } };
}

/** The message that tells the model why its reply was refused. */
export function invalidActionMessage(message: string): string {
  return `${INVALID_ACTION_PREFIX}${message} Reply with exactly one JSON object: ` +
    '{"tool": "TOOL_NAME", "args": {...}} or {"answer": "..."}.';
}

/** The body of a reply that is exactly one code fence, else the reply itself. */
function unfence(text: string): string {
  if (!text.startsWith("```") || !text.endsWith("```") || text.length < 7) return text;
  const firstLineEnd = text.indexOf("\n");
  if (firstLineEnd < 0) return text;
  const info = text.slice(3, firstLineEnd).trim().toLowerCase();
  if (info !== "" && info !== "json") return text;
  const body = text.slice(firstLineEnd + 1, text.length - 3);
  if (body.includes("```")) return text;
  return body.trim();
}

function invalid(message: string): ReactAction {
  return { kind: "invalid", message };
}

/** At most 120 characters of a model-supplied string, for messages. */
function shorten(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
