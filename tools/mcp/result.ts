/**
 * Turns an MCP `tools/call` result into a tool result: text content joined,
 * other content described in one line each (never dumped: an image is
 * base64 the model cannot use), `isError: true` as an error the model reads,
 * and a list of objects with `doc_id` (in `structuredContent` or in the JSON
 * text) as `data`, so trajectory metrics see the documents it surfaced.
 *
 * @module
 */

import type { JsonValue } from "../../lib/types.ts";
import { docIdsOf } from "../../lib/score/retrieval.ts";
import type { RawToolResult } from "../invoke.ts";

/** The longest error text from a server that is kept (characters). */
export const MAX_ERROR_CHARS = 2000;
/** JSON text longer than this is not parsed in search of doc ids. */
const MAX_JSON_SCAN_CHARS = 2_000_000;

/** One content item as the SDK hands it over (validated by the SDK's schema). */
export type McpContent = { type: string; [key: string]: unknown };

/** The parts of a `tools/call` result that are used. */
export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** The tool result for `result`, at `costUsd`, with `redact` applied to every text. */
export function convertCallResult(
  result: McpCallResult,
  costUsd: number,
  redact: (text: string) => string,
): RawToolResult {
  const parts = (result.content ?? []).map(describeContent);
  const text = redact(parts.join("\n"));
  if (result.isError === true) {
    return {
      output: "",
      error: {
        kind: "execution",
        message: text === "" ? "The MCP tool reported an error." : cut(text, MAX_ERROR_CHARS),
      },
      cost_usd: costUsd,
    };
  }
  let output = text;
  const data = docListOf(result.structuredContent) ?? docListFromText(result.content ?? []);
  if (output === "" && result.structuredContent !== undefined) {
    output = redact(JSON.stringify(result.structuredContent));
  }
  return {
    output,
    ...(data === undefined ? {} : { data: JSON.parse(redact(JSON.stringify(data))) }),
    error: null,
    cost_usd: costUsd,
  };
}

/** Text as is; any other content as a one-line description. */
export function describeContent(item: McpContent): string {
  switch (item.type) {
    case "text":
      return typeof item.text === "string" ? item.text : "";
    case "image":
    case "audio":
      return `[${item.type} content: ${str(item.mimeType, "unknown type")}, ${
        approxBytes(item.data)
      } bytes, not shown]`;
    case "resource": {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const size = typeof resource.text === "string"
        ? `${resource.text.length} characters of text`
        : `${approxBytes(resource.blob)} bytes`;
      return `[embedded resource ${str(resource.uri, "(no uri)")} (${
        str(resource.mimeType, "unknown type")
      }), ${size}, not shown]`;
    }
    case "resource_link":
      return `[resource link ${str(item.uri, "(no uri)")}${
        typeof item.name === "string" ? ` "${item.name}"` : ""
      }]`;
    default:
      return `[${String(item.type).slice(0, 40)} content, not shown]`;
  }
}

/** `value` (or its `results`) when it is a list holding objects with a string `doc_id`. */
function docListOf(value: unknown): JsonValue | undefined {
  if (value === null || typeof value !== "object") return undefined;
  return docIdsOf(value as JsonValue).length > 0 ? value as JsonValue : undefined;
}

function docListFromText(content: McpContent[]): JsonValue | undefined {
  for (const item of content) {
    if (item.type !== "text" || typeof item.text !== "string") continue;
    const text = item.text.trim();
    if (text.length > MAX_JSON_SCAN_CHARS || !(text.startsWith("[") || text.startsWith("{"))) {
      continue;
    }
    try {
      const found = docListOf(JSON.parse(text));
      if (found !== undefined) return found;
    } catch { /* not JSON: plain text */ }
  }
  return undefined;
}

function approxBytes(base64: unknown): number {
  return typeof base64 === "string" ? Math.floor(base64.length * 3 / 4) : 0;
}

function str(value: unknown, fallback: string): string {
  return typeof value === "string" && value !== "" ? value.slice(0, 200) : fallback;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [cut at ${max} characters]` : text;
}
