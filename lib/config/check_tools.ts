/**
 * The checks of the tools a config's systems offer: each reference resolved
 * to a built-in (with its options), a custom TypeScript tool or an MCP
 * server's tools; the run-wide rules on side effects (`tools.allow`,
 * `tools.allow_network`); and `tools.allow` naming only tools the config
 * has.
 *
 * @module
 */

import { dirname, isAbsolute, resolvePath } from "../util/paths.ts";
import type { ConfigIssue } from "../errors.ts";
import type { SideEffects } from "../types.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { describePath, issuesFromZod, type YamlSource } from "../util/yaml_source.ts";
import { checkMcpRef, offeredNames } from "./mcp_ref.ts";
import { customToolRefSchema, toolRefSchema, type ToolRules } from "./schema.ts";
import type { Registries, SystemConfig, SystemsPart, ToolRef } from "./types.ts";

export function checkToolRefs(
  refs: unknown[],
  path: Array<string | number>,
  source: YamlSource,
  registries: Registries,
  configPath: string,
  run: {
    customTools: Map<string, ToolRef & { kind: "custom" }>;
    problems: ConfigIssue[];
    rules: ToolRules;
  },
): ToolRef[] {
  const out: ToolRef[] = [];
  const seen = new Set<string>();
  refs.forEach((ref, i) => {
    // A malformed reference was reported by the system's schema.
    if (!toolRefSchema.safeParse(ref).success) return;
    const at = [...path, i];
    const entry: Record<string, unknown> = typeof ref === "string"
      ? { name: ref }
      : ref as Record<string, unknown>;
    if (typeof ref !== "string" && entry.type === "mcp") {
      const mcp = checkMcpRef(entry, at, {
        source,
        configPath,
        allowNetwork: run.rules.allow_network,
        reserved: new Set([...registries.tools.keys(), ...run.customTools.keys()]),
        seen,
        problems: run.problems,
      });
      if (mcp) out.push(mcp);
      return;
    }
    const name = String(entry.name);
    if (seen.has(name)) {
      run.problems.push({
        position: source.positionOf(at),
        message: `tool "${name}" is listed twice in ${describePath(path)}`,
      });
      return;
    }
    seen.add(name);
    if ("path" in entry) {
      const custom = checkCustomTool(entry, at, source, registries, configPath, run.problems);
      if (!custom) return;
      const earlier = run.customTools.get(custom.name);
      if (
        earlier && (earlier.module !== custom.module || earlier.exportName !== custom.exportName)
      ) {
        run.problems.push({
          position: source.positionOf([...at, "path"]),
          message: `custom tool "${custom.name}" is defined twice with different paths`,
        });
        return;
      }
      run.customTools.set(custom.name, custom);
      if (checkSideEffects(custom.name, custom.side_effects, at, source, run)) out.push(custom);
      return;
    }
    const builtin = registries.tools.get(name);
    if (!builtin) {
      const custom = run.customTools.get(name);
      if (custom && typeof ref === "string") {
        out.push(custom);
        return;
      }
      const known = [...registries.tools.keys(), ...run.customTools.keys()];
      run.problems.push({
        position: source.positionOf(typeof ref === "string" ? at : [...at, "name"]),
        message: `unknown tool "${name}"`,
        hint: suggestion(name, known),
      });
      return;
    }
    const { name: _name, ...optionValues } = entry;
    let options: Record<string, unknown> | undefined = {};
    if (builtin.options) {
      const parsed = builtin.options.safeParse(optionValues);
      if (parsed.success) {
        options = parsed.data as Record<string, unknown>;
      } else {
        options = undefined;
        run.problems.push(
          ...issuesFromZod(source, parsed.error, builtin.options, at, optionValues),
        );
      }
    } else if (Object.keys(optionValues).length) {
      options = undefined;
      const key = Object.keys(optionValues)[0];
      run.problems.push({
        position: source.positionOf([...at, key], { key: true }),
        message: `tool "${name}" takes no options (found "${key}")`,
      });
    }
    // The rules are checked even when the options are wrong: both are reported in one pass.
    if (checkSideEffects(name, builtin.sideEffects, at, source, run) && options) {
      out.push({ kind: "builtin", name, options });
    }
  });
  return out;
}

function checkCustomTool(
  entry: Record<string, unknown>,
  at: Array<string | number>,
  source: YamlSource,
  registries: Registries,
  configPath: string,
  problems: ConfigIssue[],
): (ToolRef & { kind: "custom" }) | undefined {
  const parsed = customToolRefSchema.safeParse(entry);
  if (!parsed.success) {
    problems.push(...issuesFromZod(source, parsed.error, customToolRefSchema, at, entry));
    return undefined;
  }
  const ref = parsed.data;
  if (registries.tools.has(ref.name)) {
    problems.push({
      position: source.positionOf([...at, "name"]),
      message: `custom tool "${ref.name}" reuses the name of a built-in tool`,
      hint: "choose another name",
    });
    return undefined;
  }
  const [file, exportName] = ref.path.split("#");
  return {
    kind: "custom",
    name: ref.name,
    module: isAbsolute(file) ? file : resolvePath(dirname(configPath), file),
    exportName,
    side_effects: ref.side_effects,
    ...(ref.timeout_s === undefined ? {} : { timeout_s: ref.timeout_s }),
    ...(ref.description === undefined ? {} : { description: ref.description }),
    ...(ref.memory_mb === undefined ? {} : { memory_mb: ref.memory_mb }),
    ...(ref.load_timeout_s === undefined ? {} : { load_timeout_s: ref.load_timeout_s }),
  };
}

/** A tool with side effects must be in `tools.allow`; a network tool also needs `allow_network`. */
function checkSideEffects(
  name: string,
  effects: SideEffects,
  at: Array<string | number>,
  source: YamlSource,
  run: { problems: ConfigIssue[]; rules: ToolRules },
): boolean {
  if (effects === "none") return true;
  if (!run.rules.allow.includes(name)) {
    run.problems.push({
      position: source.positionOf(at),
      message: `tool "${name}" has ${effects} side effects and is not in tools.allow`,
      hint: `add it to tools.allow if it may run: tools: {allow: [${name}]}`,
    });
    return false;
  }
  if (effects === "network" && !run.rules.allow_network) {
    run.problems.push({
      position: source.positionOf(at),
      message: `tool "${name}" uses the network, which tools.allow_network forbids`,
      hint: "set tools.allow_network: true to permit it",
    });
    return false;
  }
  return true;
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
    for (const t of s.tools) {
      for (const n of t.kind === "mcp" ? offeredNames(t) : [t.name]) known.add(n);
    }
  }
  raw.tools.allow.forEach((name, i) => {
    if (!known.has(name)) {
      problems.push({
        position: source.positionOf(["tools", "allow", i]),
        message:
          `tools.allow names "${name}", which is neither a built-in nor a custom tool of this config`,
        hint: suggestion(name, [...known]),
      });
    }
  });
}
