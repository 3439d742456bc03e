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
import { ConfigError, type ConfigIssue } from "../errors.ts";
import { readTextFile } from "../util/fs.ts";
import { shieldProtoKeys } from "../util/proto_keys.ts";
import { issuesFromZod, parseYaml } from "../util/yaml_source.ts";
import { configSchema, toolRulesSchema } from "./schema.ts";
import { checkRetrieverNames, checkSystems, resolveRetrieverBases } from "./check_systems.ts";
import { checkAllowList } from "./check_tools.ts";
import type { Config, Registries } from "./types.ts";

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
      resolveRetrieverBases(partial, source, problems);
      const systems = checkSystems(partial, source, registries, where.absolute, problems);
      if (rules.success) checkAllowList(partial, systems, source, registries, problems);
    }
    throw new ConfigError("config", sortByPosition(problems));
  }
  const raw = parsed.data;
  const problems: ConfigIssue[] = [];
  checkRetrieverNames(raw, source, problems);
  resolveRetrieverBases(raw, source, problems);
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
function sources<T extends { beir: string } | { path: string }>(
  value: string | T | Array<string | T>,
  base: string,
): Array<string | T> {
  const absolute = (p: string) => (isAbsolute(p) ? p : resolvePath(base, p));
  return (Array.isArray(value) ? value : [value]).map((one) =>
    typeof one === "string"
      ? absolute(one)
      : "beir" in one
      ? { ...one, beir: absolute(one.beir) }
      : { ...one, path: absolute(one.path) }
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
