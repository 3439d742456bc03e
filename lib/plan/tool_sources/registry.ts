/**
 * Every tool source, looked up by a reference's `kind` with `Map.get`.
 * Adding a source (plug-ins, framework tools) is one file in this folder
 * (`defineToolSource`, every facet of `source.ts`) and one line here. The
 * order is the order in which sources are asked to claim a config entry:
 * sources with a `type:` first, the built-ins last (they take every entry
 * that has a name and that no other source claimed).
 *
 * @module
 */

import type { Config, ToolRef } from "../../config/types.ts";
import { builtinSource } from "./builtin.ts";
import { customSource } from "./custom.ts";
import { mcpSource } from "./mcp.ts";
import { pluginSource, pluginToolRefs } from "./plugin.ts";
import type { ToolSource } from "./source.ts";

/** Tool sources by kind, in claiming order. */
export const TOOL_SOURCES: ReadonlyMap<string, ToolSource> = new Map<string, ToolSource>([
  [mcpSource.kind, mcpSource],
  [customSource.kind, customSource],
  [pluginSource.kind, pluginSource],
  [builtinSource.kind, builtinSource],
]);

/**
 * The source of `ref`.
 *
 * @throws {TypeError} when its kind is not registered (a bug: the config's check made it).
 */
export function sourceOf(ref: ToolRef): ToolSource {
  const source = TOOL_SOURCES.get(ref.kind);
  if (source === undefined) throw new TypeError(`tool source "${ref.kind}" is not registered`);
  return source;
}

/**
 * Every tool reference of the config's systems, in order, with the system
 * naming it; then the plug-ins' tools no system offers (`system` is then
 * `tools.plugins`), which are in the registry all the same.
 */
export function toolRefsOf(
  config: Pick<Config, "systems"> & Partial<Pick<Config, "tools" | "file">>,
): Array<{ system: string; ref: ToolRef; source: ToolSource }> {
  const offered = config.systems.flatMap((s) =>
    s.tools.map((ref) => ({ system: s.name, ref, source: sourceOf(ref) }))
  );
  if (config.tools === undefined || config.file === undefined) return offered;
  const names = new Set(offered.map((o) => o.ref.name));
  const plugins = pluginToolRefs({ tools: config.tools, file: config.file })
    .filter((ref) => !names.has(ref.name))
    .map((ref) => ({ system: "tools.plugins", ref, source: sourceOf(ref) }));
  return [...offered, ...plugins];
}

/** The names a model sees for the tools of `ref`. */
export function offeredNamesOf(ref: ToolRef): string[] {
  return sourceOf(ref).offeredNames(ref);
}
