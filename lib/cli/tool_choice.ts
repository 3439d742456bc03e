/**
 * What `ragbench tool NAME` calls, decided once for the command and for the
 * launcher (which grants what that call needs): a custom tool of the config,
 * `search` over a retriever (the config's `default`, or the one `--retriever`
 * names), another built-in (in the sandbox worker), or nothing known.
 *
 * @module
 */

import type { Config, RetrieverChoice, ToolRef } from "../config/types.ts";
import { UsageError } from "../errors.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { search } from "../../tools/search.ts";
import { defaultRetrieverChoice } from "../plan/plan.ts";
import type { ParsedArgs } from "./args.ts";

/** The tool one `ragbench tool` call makes. */
export type ToolChoice =
  | { kind: "custom"; ref: ToolRef & { kind: "custom" } }
  | { kind: "search"; retriever: RetrieverChoice }
  | { kind: "builtin"; name: string }
  | { kind: "unknown"; known: string[] };

/**
 * Decides what `tool NAME` calls with `args` (`--retriever`) and the loaded `config`.
 *
 * @throws {UsageError} for `--retriever` without `--config`, with a tool other
 *   than `search`, or naming no retriever of the config (with a did-you-mean).
 */
export function toolChoice(name: string, config: Config | null, args: ParsedArgs): ToolChoice {
  const retriever = args.options.get("retriever");
  if (retriever !== undefined && name !== search.name) {
    throw new UsageError(
      `--retriever chooses the retriever of the search tool; "${name}" takes none.`,
    );
  }
  const custom = config ? customRef(config, name) : undefined;
  if (custom) return { kind: "custom", ref: custom };
  if (name === search.name) {
    const named = args.options.get("config") ?? config?.file ?? "";
    return { kind: "search", retriever: searchRetriever(config, retriever, named) };
  }
  if (BUILTIN_TOOLS.has(name)) return { kind: "builtin", name };
  return {
    kind: "unknown",
    known: [...BUILTIN_TOOLS.keys(), ...(config ? customNames(config) : [])],
  };
}

/** The retriever `search` runs over: the one named, else the config's default (BM25 defaults without one). */
function searchRetriever(
  config: Config | null,
  name: string | undefined,
  configPath: string,
): RetrieverChoice {
  if (name === undefined) return defaultRetrieverChoice(config ?? { retrievers: {} });
  if (config === null) {
    throw new UsageError(
      `--retriever ${name} names a retriever of a config: give the config with --config CONFIG.`,
    );
  }
  const named = new Map(Object.entries(config.retrievers));
  const chosen = named.get(name);
  if (chosen === undefined) {
    const names = [...named.keys()];
    throw new UsageError(
      names.length === 0
        ? `--retriever ${name}: "${configPath}" has no retrievers: section; search uses BM25 with its defaults without --retriever.`
        : `--retriever ${name}: "${configPath}" has no retriever of that name — ${
          suggestion(name, names)
        }`,
    );
  }
  return { key: `named:${name}`, name, config: chosen };
}

function customRef(config: Config, name: string): (ToolRef & { kind: "custom" }) | undefined {
  for (const system of config.systems) {
    for (const tool of system.tools) if (tool.kind === "custom" && tool.name === name) return tool;
  }
  return undefined;
}

function customNames(config: Config): string[] {
  return config.systems.flatMap((s) =>
    s.tools.filter((t) => t.kind === "custom").map((t) => t.name)
  );
}
