/**
 * The checks of the tools a config's systems offer: each reference is
 * checked by the first tool source that claims it (`Registries.toolSources`:
 * built-ins with their options, custom TypeScript tools, MCP servers' tools,
 * each a file of `lib/plan/tool_sources/`), which applies the run-wide rules
 * on side effects (`tools.allow`, `tools.allow_network`); and `tools.allow`
 * must name only tools the config has.
 *
 * @module
 */

import type { ConfigIssue } from "../errors.ts";
import { suggestion } from "../util/did_you_mean.ts";
import type { ValuePath, YamlSource } from "../util/yaml_source.ts";
import { toolRefSchema, type ToolRules } from "./schema.ts";
import { claimName, type ToolCheckContext, type ToolEntry } from "./tool_check.ts";
import type { Registries, SystemConfig, SystemsPart, ToolRef } from "./types.ts";

/** What the checks of one system's tools share with the rest of the config. */
export interface ToolRefsRun {
  source: YamlSource;
  registries: Registries;
  /** The config file's absolute path. */
  configPath: string;
  rules: ToolRules;
  /** Tools defined under a name by earlier references (shared by every system). */
  defined: Map<string, ToolRef>;
  problems: ConfigIssue[];
}

/** Checks the `tools:` list at `path` of one system; returns the sound references. */
export function checkToolRefs(refs: unknown[], path: ValuePath, run: ToolRefsRun): ToolRef[] {
  const out: ToolRef[] = [];
  const ctx: ToolCheckContext = {
    source: run.source,
    configPath: run.configPath,
    rules: run.rules,
    builtins: run.registries.tools,
    defined: run.defined,
    seen: new Set<string>(),
    listPath: path,
    problems: run.problems,
  };
  refs.forEach((ref, i) => {
    // A malformed reference was reported by the system's schema.
    if (!toolRefSchema.safeParse(ref).success) return;
    const at = [...path, i];
    const bare = typeof ref === "string";
    const entry: ToolEntry = bare ? { name: ref } : ref as ToolEntry;
    // A tool an earlier system defined under a name (a custom tool) may be named alone.
    const name = String(entry.name);
    const alone = bare || (Object.keys(entry).length === 1 && typeof entry.name === "string");
    const defined = alone && !run.registries.tools.has(name) ? run.defined.get(name) : undefined;
    if (defined) {
      if (claimName(name, at, ctx)) out.push(defined);
      return;
    }
    const kind = run.registries.toolSources.find((s) => s.claims({ entry, at, bare }));
    if (kind === undefined) {
      const types = run.registries.toolSources.flatMap((s) => s.entryType ?? []);
      run.problems.push({
        position: run.source.positionOf([...at, "type"]),
        message: `unknown tool type "${String(entry.type)}"`,
        hint: suggestion(String(entry.type), types),
      });
      return;
    }
    const checked = kind.check({ entry, at, bare }, ctx);
    if (checked) out.push(checked);
  });
  return out;
}

/** Names the model sees for the tools of `ref` (by its kind in `registries`). */
export function offeredNamesOf(ref: ToolRef, registries: Registries): string[] {
  const kind = registries.toolSources.find((s) => s.kind === ref.kind);
  if (kind === undefined) {
    throw new TypeError(`tool reference kind "${ref.kind}" is not registered`);
  }
  return kind.offeredNames(ref);
}

export function checkAllowList(
  raw: SystemsPart,
  systems: SystemConfig[],
  source: YamlSource,
  registries: Registries,
  problems: ConfigIssue[],
): void {
  const known = new Set<string>(registries.tools.keys());
  for (const s of systems) {
    for (const t of s.tools) for (const n of offeredNamesOf(t, registries)) known.add(n);
  }
  raw.tools.allow.forEach((name, i) => {
    if (!known.has(name)) {
      problems.push({
        position: source.positionOf(["tools", "allow", i]),
        message:
          `tools.allow names "${name}", which is neither a built-in nor a custom or plug-in tool of this config`,
        hint: suggestion(name, [...known]),
      });
    }
  });
}
