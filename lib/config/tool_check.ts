/**
 * How the config checks one kind of tool reference, as this layer sees it.
 * The kinds themselves (built-in, custom, MCP, ...) are objects of
 * `lib/plan/tool_sources/`, injected through `Registries.toolSources` so
 * that this layer imports none of them; here is what each must offer the
 * loader ({@link ToolRefChecker}), what it gets ({@link ToolCheckContext}),
 * and the rules every kind shares (a name listed twice, side effects against
 * `tools.allow`).
 *
 * @module
 */

import type { z } from "zod";
import type { ConfigIssue } from "../errors.ts";
import type { SideEffects } from "../types.ts";
import { describePath, type ValuePath, type YamlSource } from "../util/yaml_source.ts";
import type { ToolRules } from "./schema.ts";

/** What the loader needs to know about a built-in tool. */
export interface ToolInfo {
  sideEffects: SideEffects;
  /** Options a config may set for the tool; none when absent. */
  options?: z.ZodObject;
}

/**
 * A tool reference of a system, checked: which tool source resolves it
 * (`kind`: `builtin`, `custom`, `mcp`, ...) and the name it goes by. The
 * rest is its source's own (`lib/plan/tool_sources/`: `BuiltinToolRef`,
 * `CustomToolRef`, `McpToolRef` of `mcp_ref.ts`); code outside a source
 * reads a reference only through the source's facets.
 */
export interface ToolRef {
  readonly kind: string;
  /** The tool's name, or the server's label for an MCP entry (`mcp <label>`). */
  readonly name: string;
}

/** A tool reference as written, a bare name turned into `{name}`. */
export type ToolEntry = Readonly<Record<string, unknown>>;

/** One entry of a `tools:` list and where it is. */
export interface ToolEntryAt {
  entry: ToolEntry;
  /** Its path in the config. */
  at: ValuePath;
  /** It was written as a bare name (`- calculator`), not a mapping. */
  bare: boolean;
}

/** What checking one reference needs from the rest of the config. */
export interface ToolCheckContext {
  source: YamlSource;
  /** The config file's absolute path (relative paths in references are against its folder). */
  configPath: string;
  rules: ToolRules;
  /** The built-in tools. */
  builtins: ReadonlyMap<string, ToolInfo>;
  /**
   * Tools that earlier references of the config defined under a name (a custom
   * tool's `{name, path}`), by name: a later system may name them alone.
   */
  defined: Map<string, ToolRef>;
  /** Names this system offers so far; each check adds its own. */
  seen: Set<string>;
  /** The system's `tools:` path (for messages). */
  listPath: ValuePath;
  problems: ConfigIssue[];
}

/** What the loader needs of one kind of tool reference. */
export interface ToolRefChecker<R extends ToolRef = ToolRef> {
  /** `ToolRef.kind` of the references it makes. */
  readonly kind: string;
  /**
   * The `type:` of its entries (`mcp`); null for a kind told apart another
   * way (a custom tool by its `path:`, a built-in by its name). Used to name
   * the known types when an entry's `type:` is unknown.
   */
  readonly entryType: string | null;
  /**
   * Whether `entry` is its kind. The loader asks each kind in registry order
   * and the first that says yes checks the entry.
   */
  claims(ref: ToolEntryAt): boolean;
  /** Checks the entry; adds problems to `ctx` and returns undefined when it is wrong. */
  check(ref: ToolEntryAt, ctx: ToolCheckContext): R | undefined;
  /** The names a model sees for the tools of `ref`. */
  offeredNames(ref: R): string[];
  /**
   * The tools it defines for the whole config, before any system names them
   * (a plug-in's, from `tools.plugins`): a system then names one alone, like
   * a built-in. Adds problems to `ctx` for those it cannot define.
   */
  predefine(ctx: PredefineContext): R[];
}

/** What {@link ToolRefChecker.predefine} gets. */
export interface PredefineContext {
  source: YamlSource;
  configPath: string;
  rules: ToolRules;
  builtins: ReadonlyMap<string, ToolInfo>;
  problems: ConfigIssue[];
}

/**
 * Records that this system offers `name`; false (with a problem) when it
 * already does.
 */
export function claimName(name: string, at: ValuePath, ctx: ToolCheckContext): boolean {
  if (ctx.seen.has(name)) {
    ctx.problems.push({
      position: ctx.source.positionOf(at),
      message: `tool "${name}" is listed twice in ${describePath(ctx.listPath)}`,
    });
    return false;
  }
  ctx.seen.add(name);
  return true;
}

/** A tool with side effects must be in `tools.allow`; a network tool also needs `allow_network`. */
export function checkSideEffects(
  name: string,
  effects: SideEffects,
  at: ValuePath,
  ctx: Pick<ToolCheckContext, "source" | "rules" | "problems">,
): boolean {
  if (effects === "none") return true;
  if (!ctx.rules.allow.includes(name)) {
    ctx.problems.push({
      position: ctx.source.positionOf(at),
      message: `tool "${name}" has ${effects} side effects and is not in tools.allow`,
      hint: `add it to tools.allow if it may run: tools: {allow: [${name}]}`,
    });
    return false;
  }
  if (effects === "network" && !ctx.rules.allow_network) {
    ctx.problems.push({
      position: ctx.source.positionOf(at),
      message: `tool "${name}" uses the network, which tools.allow_network forbids`,
      hint: "set tools.allow_network: true to permit it",
    });
    return false;
  }
  return true;
}
