/**
 * Everything a custom tool's module needs, in one import:
 *
 * ```ts
 * import { defineTool, toolError, z } from "ragbench/tool";
 *
 * export const lookupPrice = defineTool({
 *   name: "lookup_price",
 *   description: "Price of a product in the internal catalogue, in US dollars.",
 *   parameters: z.object({ product: z.string().describe("Product name") }),
 *   sideEffects: "none",
 *   run({ product }, ctx) { ... },
 * });
 * ```
 *
 * `ragbench/tool` is mapped to this file in the project's `deno.json`.
 *
 * @module
 */

export { z } from "zod";
export { defineTool, toolError, toolResult } from "./define_tool.ts";
export type { ToolContext, ToolDef, ToolReturn, ToolReturnValue } from "./define_tool.ts";
export type {
  Corpus,
  Document,
  JsonValue,
  SideEffects,
  Table,
  ToolErrorKind,
} from "../lib/types.ts";
