/**
 * Every built-in tool, looked up by name with `Map.get` (never `obj[name]`:
 * a model can name a tool `constructor`). Adding a built-in is one file in
 * `tools/` and one line in `worker_registry.ts` (or here, for a tool that
 * must run in the main process, as `search` does).
 *
 * @module
 */

import type { ToolDef } from "./define_tool.ts";
import { search } from "./search.ts";
import { WORKER_TOOLS } from "./worker_registry.ts";

/** Built-in tools by name, in the order `ragbench tools` lists them. */
export const BUILTIN_TOOLS: ReadonlyMap<string, ToolDef> = new Map<string, ToolDef>([
  ...WORKER_TOOLS,
  [search.name, search as ToolDef],
]);
