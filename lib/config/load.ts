/**
 * Loads a config file: YAML with positions, zod validation, then a second
 * pass that checks each system against its type's schema and each tool
 * reference against the tool registry and the run-wide tool rules. Every
 * problem is reported with file:line and, for names, a did-you-mean hint.
 * Loading never starts anything (no model, no tool, no server).
 *
 * @module
 */

import { dirname, isAbsolute, resolvePath } from "../util/paths.ts";
import type { z } from "zod";
import type { CorpusSource } from "../data/corpus.ts";
import type { QuestionSource } from "../data/questions.ts";
import { ConfigError, type ConfigIssue } from "../errors.ts";
import type { SideEffects } from "../types.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { readTextFile } from "../util/fs.ts";
import { restoreProtoKey, shieldProtoKeys } from "../util/proto_keys.ts";
import { describePath, issuesFromZod, parseYaml, type YamlSource } from "../util/yaml_source.ts";
import { checkMcpRef, type McpToolRef, offeredNames } from "./mcp_ref.ts";
import { type RetrieverConfig, retrieverSchema } from "./retriever_schema.ts";
import {
  configSchema,
  customToolRefSchema,
  type EvaluationConfig,
  type ModelConfig,
  type ModelOverride,
  modelSchema,
  nameSchema,
  type RawConfig,
  toolRefSchema,
  type ToolRules,
  toolRulesSchema,
} from "./schema.ts";
import { systemModel } from "./system_model.ts";

/** What the loader needs to know about a system type. */
export interface SystemSchemaInfo {
  /** Strict schema of the whole system entry (type, name, options, tools). */
  options: z.ZodObject;
  /** Whether the entry may have a `tools:` list. */
  acceptsTools: boolean;
  /** Why it takes no `tools:` list, said in the error. */
  noToolsReason?: string;
}

/** What the loader needs to know about a built-in tool. */
export interface ToolInfo {
  sideEffects: SideEffects;
  /** Options a config may set for the tool; none when absent. */
  options?: z.ZodObject;
}

/** The registries a config is checked against (injected, so this layer imports no system or tool). */
export interface Registries {
  systems: ReadonlyMap<string, SystemSchemaInfo>;
  tools: ReadonlyMap<string, ToolInfo>;
}

/** Name of the retriever a searching system uses when it names none. */
export const DEFAULT_RETRIEVER = "default";

/**
 * The retriever a system uses, after defaults. `key` identifies one build in
 * a run: systems with the same key share one index and one set of
 * embeddings.
 */
export interface RetrieverChoice {
  /** `named:<name>` for an entry of `retrievers:` (or the default), `inline:<system>` otherwise. */
  key: string;
  /** The `retrievers:` name, or the system's name for an inline retriever. */
  name: string;
  config: RetrieverConfig;
}

/** A tool a system offers: a built-in with its options, a custom TypeScript tool, or an MCP server's tools. */
export type ToolRef =
  | McpToolRef
  | { kind: "builtin"; name: string; options: Record<string, unknown> }
  | {
    kind: "custom";
    name: string;
    /** Absolute path of the module. */
    module: string;
    exportName: string;
    side_effects: SideEffects;
    timeout_s?: number;
    description?: string;
    memory_mb?: number;
    load_timeout_s?: number;
  };

/** A system of the run, validated against its type's schema. */
export interface SystemConfig {
  type: string;
  name: string;
  /** The validated entry, defaults applied (includes `type` and `name`). */
  options: Record<string, unknown>;
  /** Tools the system offers besides any it always has; empty for tool-less systems. */
  tools: ToolRef[];
  /** The retriever of a system whose type takes `retriever:`; null for the others. */
  retriever: RetrieverChoice | null;
  /** Its model: the system's `model:` merged over the run's. */
  model: ModelConfig;
}

/** A loaded, validated config with every path absolute. */
export interface Config {
  /** The config file's absolute path. */
  file: string;
  name: string;
  description?: string;
  /** Corpus sources (a file or folder path, or a BEIR folder), merged in order. */
  corpus: CorpusSource[];
  /** Question sets (a file path, or a BEIR folder and split), concatenated in order. */
  questions: QuestionSource[];
  /** Mock-script paths (empty when none), merged in order. */
  mock_script: string[];
  model: ModelConfig;
  evaluation: EvaluationConfig;
  tools: ToolRules;
  /** `retrievers:` after defaults, by name. */
  retrievers: Record<string, RetrieverConfig>;
  systems: SystemConfig[];
}

/**
 * Reads and validates the config at `path`.
 *
 * @throws {ConfigError} listing every problem with its line.
 * @throws {RagbenchError} when the file cannot be read.
 */
export async function loadConfig(path: string, registries: Registries): Promise<Config> {
  const text = await readTextFile(path, "config");
  return parseConfig(text, { file: path, absolute: resolvePath(path) }, registries);
}

/** Validates config text; `where.absolute` anchors relative paths. */
export function parseConfig(
  text: string,
  where: { file: string; absolute: string },
  registries: Registries,
): Config {
  const { source, issues } = parseYaml(text, where.file);
  if (issues.length) throw new ConfigError("config", issues);
  if (source.value === null || typeof source.value !== "object" || Array.isArray(source.value)) {
    throw new ConfigError("config", [{
      position: { file: where.file, line: 1 },
      message: "the file must be a mapping with name, corpus, questions and systems",
    }]);
  }
  // Shielded, so that a "__proto__" key is reported as unknown wherever it stands.
  const parsed = configSchema.safeParse(shieldProtoKeys(source.value));
  if (!parsed.success) {
    // Report the systems' own problems too, when the systems list itself is sound.
    const problems = issuesFromZod(source, parsed.error, configSchema);
    const value = source.value as Record<string, unknown>;
    const systemsList = configSchema.shape.systems.safeParse(shieldProtoKeys(value.systems));
    if (systemsList.success) {
      const rules = toolRulesSchema.safeParse(value.tools ?? {});
      const retrievers = configSchema.shape.retrievers.safeParse(
        shieldProtoKeys(value.retrievers),
      );
      const partial = {
        systems: systemsList.data,
        tools: rules.success ? rules.data : toolRulesSchema.parse({}),
        retrievers: retrievers.success ? retrievers.data : {},
      };
      const systems = checkSystems(partial, source, registries, where.absolute, problems);
      if (rules.success) checkAllowList(partial, systems, source, registries, problems);
    }
    throw new ConfigError("config", sortByPosition(problems));
  }
  const raw = parsed.data;
  const problems: ConfigIssue[] = [];
  checkRetrieverNames(raw, source, problems);
  const systems = checkSystems(raw, source, registries, where.absolute, problems);
  checkAllowList(raw, systems, source, registries, problems);
  if (problems.length) throw new ConfigError("config", problems);
  const base = dirname(where.absolute);
  const at = (p: string | string[]) =>
    (Array.isArray(p) ? p : [p]).map((one) => (isAbsolute(one) ? one : resolvePath(base, one)));
  return {
    file: where.absolute,
    name: raw.name,
    ...(raw.description === undefined ? {} : { description: raw.description }),
    corpus: sources(raw.corpus, base),
    questions: sources(raw.questions, base),
    mock_script: raw.mock_script === undefined ? [] : at(raw.mock_script),
    model: raw.model,
    evaluation: raw.evaluation,
    tools: raw.tools,
    retrievers: raw.retrievers,
    systems,
  };
}

/** Data sources as a list, every path (or BEIR folder) made absolute against `base`. */
function sources<T extends { beir: string }>(value: string | T | Array<string | T>, base: string) {
  const absolute = (p: string) => (isAbsolute(p) ? p : resolvePath(base, p));
  return (Array.isArray(value) ? value : [value]).map((one) =>
    typeof one === "string" ? absolute(one) : { ...one, beir: absolute(one.beir) }
  );
}

/** Issues in file order (stable for equal positions). */
function sortByPosition(issues: ConfigIssue[]): ConfigIssue[] {
  const key = (i: ConfigIssue) => [i.position.line ?? 0, i.position.column ?? 0];
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => {
      const [la, ca] = key(a.issue);
      const [lb, cb] = key(b.issue);
      return la - lb || ca - cb || a.index - b.index;
    })
    .map((x) => x.issue);
}

/** The parts of the config the system checks read. */
/** What the systems are checked against; `model` is absent on the error path (a default is used). */
type SystemsPart =
  & Pick<RawConfig, "systems" | "tools" | "retrievers">
  & Partial<Pick<RawConfig, "model">>;

/**
 * Checks every system entry and returns the sound ones. Each entry is checked
 * as far as it can be, so one pass reports all of its problems: an unknown
 * type, a tools list on a tool-less type, bad options, a duplicate name and
 * bad tool references are each reported, not only the first.
 */
function checkSystems(
  raw: SystemsPart,
  source: YamlSource,
  registries: Registries,
  configPath: string,
  problems: ConfigIssue[],
): SystemConfig[] {
  const systems: SystemConfig[] = [];
  const names = new Map<string, number>();
  const customTools = new Map<string, ToolRef & { kind: "custom" }>();
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
    const tools = checkToolRefs(refs, [...path, "tools"], source, registries, configPath, {
      customTools,
      problems,
      rules: raw.tools,
    });
    if (options && problems.length === before) {
      systems.push({
        type: entry.type,
        name,
        options: { ...options, name },
        tools,
        retriever,
        model: systemModel(runModel, options.model as ModelOverride | undefined),
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
  return { key: `inline:${systemName}`, name: systemName, config: parsed.data };
}

/** The `retrievers:` entries by the names the config wrote (validation shields `__proto__`). */
function retrieverEntries(raw: Pick<RawConfig, "retrievers">): Map<string, RetrieverConfig> {
  return new Map(Object.entries(raw.retrievers).map(([k, v]) => [restoreProtoKey(k), v]));
}

/** Every entry of `retrievers:` needs a valid name. */
function checkRetrieverNames(
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

function checkToolRefs(
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

function checkAllowList(
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
