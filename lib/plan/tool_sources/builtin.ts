/**
 * The built-in tools as a tool source: a reference is a built-in's name,
 * alone or with its options (`{name: corpus_grep, max_results: 10}`);
 * the built-ins run in the permission-less sandbox worker, except `search`,
 * which is served in this process over the system's retriever. The worker
 * needs no permission of its own (the run reads `tools/` and `lib/` for it:
 * `permissions.ts`).
 *
 * @module
 */

import { checkSideEffects, claimName } from "../../config/tool_check.ts";
import type { ToolRef } from "../../config/types.ts";
import { suggestion } from "../../util/did_you_mean.ts";
import { issuesFromZod } from "../../util/yaml_source.ts";
import { parametersJsonSchema } from "../../../tools/define_tool.ts";
import type { ToolHost } from "../../../tools/host.ts";
import { BUILTIN_TOOLS } from "../../../tools/registry.ts";
import { search } from "../../../tools/search.ts";
import type { OfferedTool } from "../../../tools/toolbox.ts";
import { defineToolSource } from "./source.ts";

/** A built-in tool a system offers, with its options (every default applied). */
export interface BuiltinToolRef extends ToolRef {
  readonly kind: "builtin";
  options: Record<string, unknown>;
}

/** The reference to a built-in with every default option (a system's always-on tools). */
export function builtinRef(name: string): BuiltinToolRef {
  return { kind: "builtin", name, options: defaultOptions(name) };
}

/** The built-in tools. The last source of the registry: it takes every entry that has a name. */
export const builtinSource = defineToolSource<BuiltinToolRef>({
  kind: "builtin",
  entryType: null,
  claims: ({ entry }) => typeof entry.name === "string",
  check({ entry, at, bare }, ctx) {
    const name = String(entry.name);
    if (!claimName(name, at, ctx)) return undefined;
    const builtin = ctx.builtins.get(name);
    if (!builtin) {
      ctx.problems.push({
        position: ctx.source.positionOf(bare ? at : [...at, "name"]),
        message: `unknown tool "${name}"`,
        hint: suggestion(name, [...ctx.builtins.keys(), ...ctx.defined.keys()]),
      });
      return undefined;
    }
    const { name: _name, ...optionValues } = entry;
    let options: Record<string, unknown> | undefined = {};
    if (builtin.options) {
      const parsed = builtin.options.safeParse(optionValues);
      if (parsed.success) {
        options = parsed.data as Record<string, unknown>;
      } else {
        options = undefined;
        ctx.problems.push(
          ...issuesFromZod(ctx.source, parsed.error, builtin.options, at, optionValues),
        );
      }
    } else if (Object.keys(optionValues).length) {
      options = undefined;
      const key = Object.keys(optionValues)[0];
      ctx.problems.push({
        position: ctx.source.positionOf([...at, key], { key: true }),
        message: `tool "${name}" takes no options (found "${key}")`,
      });
    }
    // The rules are checked even when the options are wrong: both are reported in one pass.
    if (!checkSideEffects(name, builtin.sideEffects, at, ctx) || !options) return undefined;
    return { kind: "builtin", name, options };
  },
  predefine: () => [],
  offeredNames: (ref) => [ref.name],
  cachesResults: () => false,
  needs: () => [],
  compiledNeeds: () => [],
  files: () => [],
  resolved: (ref) => ({ name: ref.name, ...ref.options }),
  promptChars(ref) {
    const def = BUILTIN_TOOLS.get(ref.name);
    if (!def) throw new TypeError(`built-in tool "${ref.name}" is not registered`);
    return ref.name.length + def.description.length +
      JSON.stringify(parametersJsonSchema(def)).length;
  },
  workerTools: (ref) => ref.name === search.name ? [] : [ref.name],
  async offer(ref, env) {
    const host = ref.name === search.name ? await env.searchHost() : env.builtinHost();
    return [offerBuiltin(ref.name, ref.options, host, env.config)];
  },
  standalone: true,
  list: () => Promise.resolve([]),
  listNeeds: () => [],
});

/** The offered form of a built-in tool. */
export function offerBuiltin(
  name: string,
  options: Record<string, unknown>,
  host: ToolHost,
  config: { tools: { timeout_s: number } },
): OfferedTool {
  const def = BUILTIN_TOOLS.get(name);
  if (!def) throw new TypeError(`built-in tool "${name}" is not registered`);
  return {
    name: def.name,
    description: def.description,
    sideEffects: def.sideEffects,
    parameters: parametersJsonSchema(def),
    options,
    timeoutMs: config.tools.timeout_s * 1000,
    host,
  };
}

/** A built-in's options with every default applied. */
export function defaultOptions(name: string): Record<string, unknown> {
  const def = BUILTIN_TOOLS.get(name);
  return (def?.options?.parse({}) ?? {}) as Record<string, unknown>;
}
