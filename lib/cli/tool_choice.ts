/**
 * What `ragbench tool NAME` calls, decided once for the command and for the
 * launcher (which grants what that call needs): the first reference of the
 * config that offers NAME and whose source lets `tool` call it alone (a
 * custom tool, a built-in with the config's options), else the built-in of
 * that name with its defaults, or nothing known. The reference's source
 * (`lib/plan/tool_sources`) says how it is started and what it needs; the
 * `search` tool also gets the retriever it runs over (the config's
 * `default`, or the one `--retriever` names), whose kind
 * (`lib/retrieval/kinds`) says what that needs.
 *
 * @module
 */

import type { Config, RetrieverChoice, ToolRef } from "../config/types.ts";
import { UsageError } from "../errors.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { search } from "../../tools/search.ts";
import { defaultRetrieverChoice } from "../plan/plan.ts";
import { builtinRef } from "../plan/tool_sources/builtin.ts";
import { sourceOf, toolRefsOf } from "../plan/tool_sources/registry.ts";
import type { ToolSource } from "../plan/tool_sources/source.ts";
import type { ParsedArgs } from "./args.ts";

/** The tool one `ragbench tool` call makes, or the names it could have been. */
export type ToolChoice =
  | {
    kind: "found";
    ref: ToolRef;
    source: ToolSource;
    /** The retriever `search` runs over; null for every other tool. */
    retriever: RetrieverChoice | null;
  }
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
  const ref = (config ? standaloneRef(config, name) : undefined) ??
    (BUILTIN_TOOLS.has(name) ? builtinRef(name) : undefined);
  if (ref === undefined) {
    const known = new Set([...BUILTIN_TOOLS.keys(), ...(config ? standaloneNames(config) : [])]);
    return { kind: "unknown", known: [...known] };
  }
  const source = sourceOf(ref);
  const searches = source.offeredNames(ref).includes(search.name);
  const named = args.options.get("config") ?? config?.file ?? "";
  return {
    kind: "found",
    ref,
    source,
    retriever: searches ? searchRetriever(config, retriever, named) : null,
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

/** The first reference of the config that offers `name` and that `tool` may call alone. */
function standaloneRef(config: Config, name: string): ToolRef | undefined {
  return toolRefsOf(config).find(({ ref, source }) =>
    source.standalone && source.offeredNames(ref).includes(name)
  )?.ref;
}

/** Names of the tools of the config that `tool` may call alone. */
function standaloneNames(config: Config): string[] {
  return toolRefsOf(config).flatMap(({ ref, source }) =>
    source.standalone ? source.offeredNames(ref) : []
  );
}
