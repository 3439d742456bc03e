/**
 * The second pass over a config's systems: each entry against its type's
 * schema (from the injected registries), unique names, the system's model
 * merged over the run's, its retriever (named, inline or the default) and
 * its tool references (`check_tools.ts`). Every entry is checked as far as
 * it can be, so one pass reports all of its problems.
 *
 * @module
 */

import type { ConfigIssue } from "../errors.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { restoreProtoKey } from "../util/proto_keys.ts";
import { issuesFromZod, type YamlSource } from "../util/yaml_source.ts";
import { type RetrieverConfig, retrieverSchema } from "./retriever_schema.ts";
import { type ModelOverride, modelSchema, nameSchema, type RawConfig } from "./schema.ts";
import { systemModel } from "./system_model.ts";
import { checkToolRefs } from "./check_tools.ts";
import { checkPrompts } from "./check_prompts.ts";
import {
  type BaseContext,
  baseContext,
  resolveBase,
  resolveNamedRetrievers,
} from "./retriever_bases.ts";
import {
  DEFAULT_RETRIEVER,
  type Registries,
  type RetrieverChoice,
  type SystemConfig,
  type SystemsPart,
  type ToolRef,
} from "./types.ts";

/**
 * Checks every system entry and returns the sound ones. Each entry is checked
 * as far as it can be, so one pass reports all of its problems: an unknown
 * type, a tools list on a tool-less type, bad options, a duplicate name and
 * bad tool references are each reported, not only the first.
 */
export function checkSystems(
  raw: SystemsPart,
  source: YamlSource,
  registries: Registries,
  configPath: string,
  problems: ConfigIssue[],
): SystemConfig[] {
  const systems: SystemConfig[] = [];
  const names = new Map<string, number>();
  // Tools the config defines for every system (a plug-in's), named alone like a built-in.
  const defined = new Map<string, ToolRef>();
  for (const kind of registries.toolSources) {
    const refs = kind.predefine({
      source,
      configPath,
      rules: raw.tools,
      builtins: registries.tools,
      problems,
    });
    for (const ref of refs) defined.set(ref.name, ref);
  }
  const typeNames = [...registries.systems.keys()];
  const runModel = raw.model ?? modelSchema.parse({});
  raw.systems.forEach((entry, index) => {
    const path = ["systems", index];
    const before = problems.length;
    const name = entry.name ?? entry.type;
    const previous = names.get(name);
    if (previous !== undefined) {
      problems.push({
        position: source.positionOf(entry.name ? [...path, "name"] : path),
        message: `two systems are named "${name}" (systems[${previous}] and systems[${index}])`,
        hint: "give each system a distinct name:",
      });
    } else {
      names.set(name, index);
    }
    const info = registries.systems.get(entry.type);
    if (!info) {
      problems.push({
        position: source.positionOf([...path, "type"]),
        message: `unknown system type "${entry.type}"`,
        hint: suggestion(entry.type, typeNames),
      });
    }
    const takesRetriever = info !== undefined && "retriever" in info.options.shape;
    let checkedEntry: Record<string, unknown> = entry;
    if (info && !takesRetriever && "retriever" in entry) {
      const searching = typeNames.filter((t) =>
        "retriever" in (registries.systems.get(t)?.options.shape ?? {})
      );
      problems.push({
        position: source.positionOf([...path, "retriever"], { key: true }),
        message: `system type "${entry.type}" takes no retriever`,
        hint: `remove its retriever:, or use a system that retrieves (${searching.join(", ")})`,
      });
      // Check the other options as if the key were not there.
      const { retriever: _retriever, ...others } = checkedEntry;
      checkedEntry = others;
    }
    const toolsGiven = "tools" in entry;
    let options: Record<string, unknown> | undefined;
    if (info && !info.acceptsTools && toolsGiven) {
      const accepting = typeNames.filter((t) => registries.systems.get(t)?.acceptsTools);
      problems.push({
        position: source.positionOf([...path, "tools"], { key: true }),
        message: `system type "${entry.type}" takes no tools${
          info.noToolsReason ? `: ${info.noToolsReason}` : ""
        }`,
        hint: `remove its tools: list, or use a system that accepts tools (${
          accepting.join(", ")
        })`,
      });
      // Check the other options as if the list were not there.
      const { tools: _tools, ...rest } = checkedEntry;
      const checked = info.options.safeParse(rest);
      if (!checked.success) {
        problems.push(...issuesFromZod(source, checked.error, info.options, path, rest));
      }
    } else if (info) {
      const checked = info.options.safeParse(checkedEntry);
      if (checked.success) options = checked.data as Record<string, unknown>;
      else problems.push(...issuesFromZod(source, checked.error, info.options, path, checkedEntry));
    }
    let promptFiles: Record<string, string> = {};
    if (options && info?.prompts && options.prompts) {
      const prompts = checkPrompts(
        options.prompts as Record<string, unknown>,
        info.prompts,
        [...path, "prompts"],
        { source, configPath, problems },
      );
      // The texts themselves (a file's read in): what the system sends and the run records.
      if (prompts) {
        options = { ...options, prompts: prompts.texts };
        promptFiles = prompts.files;
      }
    }
    let retriever: RetrieverChoice | null = null;
    if (takesRetriever) {
      retriever = chooseRetriever(entry.retriever, name, [...path, "retriever"], raw, source, {
        registries,
        problems,
      }) ?? null;
    }
    // Tool references are checked whatever else is wrong with the entry (not on a tool-less type).
    const refs = options && Array.isArray(options.tools)
      ? options.tools
      : (!info || info.acceptsTools) && Array.isArray(entry.tools)
      ? entry.tools
      : [];
    const tools = checkToolRefs(refs, [...path, "tools"], {
      source,
      registries,
      configPath,
      rules: raw.tools,
      defined,
      problems,
    });
    if (options && problems.length === before) {
      systems.push({
        type: entry.type,
        name,
        options: { ...options, name },
        tools,
        retriever,
        model: systemModel(runModel, options.model as ModelOverride | undefined),
        ...(Object.keys(promptFiles).length ? { prompt_files: promptFiles } : {}),
      });
    }
  });
  return systems;
}

/**
 * The retriever of a system: the `retrievers:` entry it names, the one it
 * gives inline, or (when it gives none) the entry named `default`, else BM25
 * with every default. Undefined when the choice is wrong (a problem is added).
 */
function chooseRetriever(
  given: unknown,
  systemName: string,
  at: Array<string | number>,
  raw: Pick<RawConfig, "retrievers">,
  source: YamlSource,
  run: { registries: Registries; problems: ConfigIssue[] },
): RetrieverChoice | undefined {
  const named = retrieverEntries(raw);
  if (given === undefined) {
    const config = named.get(DEFAULT_RETRIEVER) ?? retrieverSchema.parse({});
    return { key: `named:${DEFAULT_RETRIEVER}`, name: DEFAULT_RETRIEVER, config };
  }
  if (typeof given === "string") {
    const config = named.get(given);
    if (config === undefined) {
      const known = [...named.keys()];
      run.problems.push({
        position: source.positionOf(at),
        message: `unknown retriever "${given}"`,
        hint: known.length
          ? suggestion(given, known)
          : `define it under retrievers: (e.g. retrievers: {${given}: {kind: bm25}})`,
      });
      return undefined;
    }
    return { key: `named:${given}`, name: given, config };
  }
  const parsed = retrieverSchema.safeParse(given);
  if (!parsed.success) {
    run.problems.push(...issuesFromZod(source, parsed.error, retrieverSchema, at, given));
    return undefined;
  }
  const config = resolveBase(parsed.data, at, [], contextFor(raw, source, run.problems));
  if (config === null) return undefined;
  return { key: `inline:${systemName}`, name: systemName, config };
}

/** One resolution context a config (so a failed named entry is reported once). */
const contexts = new WeakMap<object, BaseContext>();

function contextFor(
  raw: Pick<RawConfig, "retrievers">,
  source: YamlSource,
  problems: ConfigIssue[],
): BaseContext {
  let context = contexts.get(raw);
  if (context === undefined) {
    context = baseContext(raw, source, problems);
    contexts.set(raw, context);
  }
  return context;
}

/**
 * Resolves every reranker's `base` among the `retrievers:` entries (see
 * retriever_bases.ts), writing each resolved entry back into `raw`.
 */
export function resolveRetrieverBases(
  raw: Pick<RawConfig, "retrievers">,
  source: YamlSource,
  problems: ConfigIssue[],
): void {
  const context = contextFor(raw, source, problems);
  resolveNamedRetrievers(context);
  for (const key of Object.keys(raw.retrievers)) {
    const resolved = context.resolved.get(restoreProtoKey(key));
    if (resolved) raw.retrievers[key] = resolved;
  }
}

/** The `retrievers:` entries by the names the config wrote (validation shields `__proto__`). */
function retrieverEntries(raw: Pick<RawConfig, "retrievers">): Map<string, RetrieverConfig> {
  return new Map(Object.entries(raw.retrievers).map(([k, v]) => [restoreProtoKey(k), v]));
}

/** Every entry of `retrievers:` needs a valid name. */
export function checkRetrieverNames(
  raw: RawConfig,
  source: YamlSource,
  problems: ConfigIssue[],
): void {
  for (const name of retrieverEntries(raw).keys()) {
    const checked = nameSchema.safeParse(name);
    if (!checked.success) {
      problems.push({
        position: source.positionOf(["retrievers", name], { key: true }),
        message: `retriever name "${name}" is not valid: ${checked.error.issues[0].message}`,
      });
    }
  }
}
